// Command genbuild writes the sources of a large synthetic link for
// bench/run.sh's scaling runs: N x86-64 assembly files of F functions each,
// every function in its own section (as -ffunction-sections makes them, so
// that the linker map lists each), every 50th file also carrying a static
// initializer that calls a registration function (as a backend's does),
// and reg.s, which defines that function. A bfd map of the link holds about
// 150 bytes per function: N=2000, F=330 gives a 100 MB map.
//
// Usage:
//
//	genbuild -n 2000 -f 330 -o DIR    # writes DIR/o0.s ... DIR/o1999.s, DIR/reg.s
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// register is executorch::runtime::register_backend(), which etlink's
// default registration patterns recognise.
const register = "_ZN10executorch7runtime16register_backendEv"

func main() {
	n := flag.Int("n", 1000, "assembly files (objects) to write")
	f := flag.Int("f", 330, "functions per file")
	out := flag.String("o", ".", "directory to write them to")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	for k := range *n {
		if err := writeObject(filepath.Join(*out, fmt.Sprintf("o%d.s", k)), k, *f); err != nil {
			fail(err)
		}
	}
	reg := fmt.Sprintf("\t.text\n\t.globl %[1]s\n\t.type %[1]s, @function\n%[1]s:\n\tret\n\t.size %[1]s, .-%[1]s\n%s", register, noExecStack)
	if err := os.WriteFile(filepath.Join(*out, "reg.s"), []byte(reg), 0o644); err != nil {
		fail(err)
	}
}

// noExecStack keeps the linker from warning about an executable stack.
const noExecStack = "\t.section .note.GNU-stack,\"\",@progbits\n"

func writeObject(path string, k, funcs int) error {
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(file)
	for i := range funcs {
		name := fmt.Sprintf("_ZN3big%d%sEv", len(fmt.Sprintf("o%d_f%d", k, i)), fmt.Sprintf("o%d_f%d", k, i))
		fmt.Fprintf(w, "\t.section .text.%[1]s,\"ax\",@progbits\n\t.globl %[1]s\n\t.type %[1]s, @function\n%[1]s:\n\tret\n\t.size %[1]s, .-%[1]s\n", name)
	}
	if k%50 == 0 {
		init := fmt.Sprintf("_GLOBAL__sub_I_o%d.cpp", k)
		fmt.Fprintf(w, "\t.text\n\t.type %[1]s, @function\n%[1]s:\n\tjmp %[2]s@PLT\n\t.size %[1]s, .-%[1]s\n", init, register)
		fmt.Fprintf(w, "\t.section .init_array,\"aw\"\n\t.align 8\n\t.quad %s\n", init)
	}
	w.WriteString(noExecStack)
	if err := w.Flush(); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "genbuild:", err)
	os.Exit(1)
}
