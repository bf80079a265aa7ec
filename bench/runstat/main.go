// Command runstat runs a command and writes what bench/run.sh compares:
// its wall time, its CPU time (user + system) and its peak resident set,
// from the kernel's accounting of the child (wait4's rusage), in
// microseconds. /usr/bin/time prints CPU time in centiseconds: a fifth of
// etlink's conflicts run, too coarse for the ratios the bench reports.
//
// Usage:
//
//	runstat -o FILE command [args...]
//
// FILE gets one line, "wall_s cpu_s maxrss_kb". The command's output goes
// where runstat's goes; its exit status is not runstat's concern (a
// command that fails is measured all the same).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	out := flag.String("o", "", "file to write the measurement to")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: runstat -o FILE command [args...]")
		os.Exit(2)
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "runstat:", err)
		os.Exit(2)
	}
	cmd.Wait() // a failing command is measured too
	wall := time.Since(start)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintln(os.Stderr, "runstat: no resource usage for the command")
		os.Exit(2)
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	line := fmt.Sprintf("%.6f %.6f %d\n", wall.Seconds(), cpu.Seconds(), ru.Maxrss)
	if err := os.WriteFile(*out, []byte(line), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "runstat:", err)
		os.Exit(2)
	}
}
