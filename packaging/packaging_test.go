// Package packaging holds the tests of etlink's wheels (build-wheels.sh),
// its pre-commit hooks (.pre-commit-hooks.yaml) and its CI action
// (action.yml): each is built or run as a user would, offline.
package packaging

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// root is the repository's top, seen from this package's directory.
const root = ".."

var (
	buildOnce sync.Once
	wheelDir  string // build-wheels.sh's output, shared by the tests
	buildErr  error
	scratch   string // removed when the tests end
)

func TestMain(m *testing.M) {
	var err error
	if scratch, err = os.MkdirTemp("", "etlink-packaging-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(scratch)
	os.Exit(code)
}

// wheels builds etlink's wheels once (two static binaries) and returns
// their directory.
func wheels(t *testing.T) string {
	t.Helper()
	testenv.NeedTools(t, "bash", "git", "go", "python3")
	buildOnce.Do(func() {
		wheelDir = filepath.Join(scratch, "dist")
		out, err := exec.Command("bash", filepath.Join(root, "packaging/build-wheels.sh"), wheelDir).CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("build-wheels.sh: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return wheelDir
}

// stamp is what describe.sh says of dir's checkout: version, commit, date.
func stamp(t *testing.T, dir string) []string {
	t.Helper()
	out, err := exec.Command("bash", filepath.Join(root, "packaging/describe.sh"), dir).Output()
	f := strings.Fields(string(out))
	if err != nil || len(f) != 4 {
		t.Fatalf("describe.sh %s: %q, %v", dir, out, err)
	}
	return f[:3]
}

var goarchTag = map[string]string{"amd64": "x86_64", "arm64": "aarch64"}

// wheelFor is the wheel of dir for the machine tag arch.
func wheelFor(t *testing.T, dir, arch string) string {
	t.Helper()
	version := stamp(t, root)[0]
	name := fmt.Sprintf("etlink-%s-py3-none-manylinux_2_17_%[2]s.manylinux2014_%[2]s.musllinux_1_1_%[2]s.whl", version, arch)
	path := filepath.Join(dir, name)
	if _, err := os.Stat(path); err != nil {
		ls, _ := filepath.Glob(filepath.Join(dir, "*"))
		t.Fatalf("no %s among %v", name, ls)
	}
	return path
}

// venv makes a fresh virtual environment and returns its bin directory.
func venv(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "venv")
	if out, err := exec.Command("python3", "-m", "venv", dir).CombinedOutput(); err != nil {
		testenv.Missing(t, "python3 -m venv (Debian: python3-venv): %v\n%s", err, out)
	}
	return filepath.Join(dir, "bin")
}

// shell runs script under bash with PATH led by pathDirs, and returns its
// combined output and exit code.
func shell(t *testing.T, env []string, script string, pathDirs ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+strings.Join(append(pathDirs, os.Getenv("PATH")), ":"))
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return string(out), 0
}

// TestWheels: build-wheels.sh gives an x86_64 and an aarch64 wheel, each
// tagged manylinux and musllinux, whose RECORD holds every entry's
// digest and whose binary is executable; pip (no index, a fresh venv) and
// pipx put etlink on PATH, where it says the checkout's version, runs the
// README's demo, and passes its own check.
func TestWheels(t *testing.T) {
	dir := wheels(t)
	for _, arch := range goarchTag {
		checkRecord(t, wheelFor(t, dir, arch))
	}
	arch, ok := goarchTag[runtime.GOARCH]
	if !ok {
		t.Skipf("no etlink wheel runs on %s", runtime.GOARCH)
	}
	whl := wheelFor(t, dir, arch)
	bin := venv(t)
	if out, err := exec.Command(filepath.Join(bin, "pip"), "install", "--no-index", "--quiet", whl).CombinedOutput(); err != nil {
		t.Fatalf("pip install --no-index %s: %v\n%s", whl, err, out)
	}
	want := fmt.Sprintf("%s\netlink %s (commit %s, date %s)\n", filepath.Join(bin, "etlink"), stamp(t, root)[0], stamp(t, root)[1], stamp(t, root)[2])
	if out, code := shell(t, nil, "command -v etlink && etlink version", bin); code != 0 || out != want {
		t.Errorf("after pip install, etlink version: exit %d\n%s\nwant\n%s", code, out, want)
	}
	demo := fmt.Sprintf("cd %s && etlink conflicts testdata/demo/wheel --with testdata/demo/torch", root)
	if out, code := shell(t, nil, demo, bin); code != 1 || !strings.Contains(out, "ET301") || !strings.Contains(out, "libexecutorch_threadpool.so.1") {
		t.Errorf("the README's demo from the venv: exit %d, want 1 and ET301 on libexecutorch_threadpool.so.1:\n%s", code, out)
	}
	for _, w := range []string{wheelFor(t, dir, "x86_64"), wheelFor(t, dir, "aarch64")} {
		if out, code := shell(t, nil, fmt.Sprintf("etlink check %q -q", w), bin); code != 0 {
			t.Errorf("etlink check %s: exit %d\n%s", filepath.Base(w), code, out)
		}
	}

	testenv.NeedTools(t, "pipx")
	home := t.TempDir()
	env := []string{"PIPX_HOME=" + filepath.Join(home, "pipx"), "PIPX_BIN_DIR=" + filepath.Join(home, "bin"), "PIP_NO_INDEX=1"}
	if out, code := shell(t, env, `pipx install "`+whl+`" >/dev/null 2>&1 && command -v etlink && etlink version`, filepath.Join(home, "bin")); code != 0 || !strings.HasSuffix(out, strings.SplitN(want, "\n", 2)[1]) {
		t.Errorf("pipx install: exit %d\n%s", code, out)
	}
}

// checkRecord holds a wheel to what installers verify: RECORD lists every
// other entry with its sha256 (urlsafe base64, unpadded) and size, and the
// program is executable.
func checkRecord(t *testing.T, whl string) {
	t.Helper()
	z, err := zip.OpenReader(whl)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	files := map[string][]byte{}
	var record []byte
	for _, f := range z.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(f.Name, ".dist-info/RECORD"):
			record = data
		case strings.HasSuffix(f.Name, ".data/scripts/etlink") && f.Mode().Perm() != 0o755:
			t.Errorf("%s: %s has mode %v, want 0755", filepath.Base(whl), f.Name, f.Mode())
		}
		files[f.Name] = data
	}
	for _, line := range strings.Split(strings.TrimSpace(string(record)), "\n") {
		f := strings.Split(line, ",")
		if len(f) != 3 || strings.HasSuffix(f[0], "/RECORD") {
			continue
		}
		sum := sha256.Sum256(files[f[0]])
		if want := fmt.Sprintf("sha256=%s,%d", base64.RawURLEncoding.EncodeToString(sum[:]), len(files[f[0]])); f[1]+","+f[2] != want {
			t.Errorf("%s: RECORD says %s %s,%s; the entry is %s", filepath.Base(whl), f[0], f[1], f[2], want)
		}
		delete(files, f[0])
	}
	for name := range files {
		if !strings.HasSuffix(name, "/RECORD") {
			t.Errorf("%s: %s is not in RECORD", filepath.Base(whl), name)
		}
	}
}

// TestDescribe: the version describe.sh stamps follows the nearest vX.Y.Z
// tag and is a valid PEP 440 version (as packaging, pip's parser, reads it:
// Debian's python3-packaging, a pipx dependency) in every state of a
// checkout.
func TestDescribe(t *testing.T) {
	testenv.NeedTools(t, "bash", "git", "python3")
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(text string) {
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(stamp(t, dir), " "); got != "0.0.0+unknown unknown unknown" {
		t.Errorf("describe.sh outside a git checkout: %s", got)
	}
	git("init", "-q")
	write("1")
	git("add", "f")
	git("commit", "-qm", "one")
	short := func() string { return git("rev-parse", "--short=12", "HEAD") }
	check := func(want, wantCommitSuffix string) {
		t.Helper()
		got := stamp(t, dir)
		if got[0] != want || got[1] != git("rev-parse", "HEAD")+wantCommitSuffix || !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`).MatchString(got[2]) {
			t.Errorf("describe.sh: %q, want version %s, commit HEAD%s and an RFC 3339 UTC date", got, want, wantCommitSuffix)
		}
		pep440 := exec.Command("python3", "-c", "import sys\ntry:\n from packaging.version import Version\nexcept ImportError:\n from pip._vendor.packaging.version import Version\nprint(Version(sys.argv[1]))", got[0])
		if out, err := pep440.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != got[0] {
			t.Errorf("%s is not a normalized PEP 440 version: %s %v", got[0], out, err)
		}
	}
	check("0.0.0+g"+short(), "")
	git("tag", "v1.2.0")
	check("1.2.0", "")
	write("2")
	check("1.2.0+g"+short()+".dirty", "-dirty")
	git("commit", "-qam", "two")
	check("1.2.0.post1+g"+short(), "")
	git("tag", "-a", "-m", "rc", "v2.0.0-rc1")
	check("2.0.0rc1", "")
	write("3")
	git("commit", "-qam", "three")
	git("tag", "v3.x")
	if out, err := exec.Command("bash", filepath.Join(root, "packaging/describe.sh"), dir).CombinedOutput(); err == nil {
		t.Errorf("describe.sh on tag v3.x: %s, want an error (not a version)", out)
	}
}

// TestPreCommitHooks runs the hooks of .pre-commit-hooks.yaml with
// Debian's pre-commit (try-repo, no package index) and the etlink of the
// wheel on PATH: etlink-lint fails on a pybind11 module that links
// libpython and passes once it does not; etlink-check passes etlink's own
// wheel and fails a broken one.
func TestPreCommitHooks(t *testing.T) {
	testenv.NeedTools(t, "pre-commit")
	bin := installed(t)
	hooks := t.TempDir()
	copyFile(t, filepath.Join(root, ".pre-commit-hooks.yaml"), filepath.Join(hooks, ".pre-commit-hooks.yaml"))
	gitCommit(t, hooks)

	project := t.TempDir()
	cmake := filepath.Join(project, "CMakeLists.txt")
	bad := "cmake_minimum_required(VERSION 3.18)\nproject(p CXX)\nfind_package(Python3 COMPONENTS Interpreter Development)\nfind_package(pybind11 CONFIG REQUIRED)\npybind11_add_module(ext ext.cpp)\ntarget_link_libraries(ext PRIVATE Python3::Python)\n"
	writeFile(t, cmake, bad)
	gitCommit(t, project)
	env := []string{"PRE_COMMIT_HOME=" + t.TempDir()}
	try := func(hook string) (string, int) {
		return shell(t, env, fmt.Sprintf("cd %q && pre-commit try-repo %q %s --all-files", project, hooks, hook), bin)
	}
	if out, code := try("etlink-lint"); code == 0 || !strings.Contains(out, "ET202") {
		t.Errorf("etlink-lint on a module linking Python3::Python: exit %d, want a failure naming ET202:\n%s", code, out)
	}
	writeFile(t, cmake, strings.Replace(bad, "target_link_libraries(ext PRIVATE Python3::Python)\n", "", 1))
	if out, code := try("etlink-lint"); code != 0 {
		t.Errorf("etlink-lint on a module that does not link libpython: exit %d:\n%s", code, out)
	}

	add := func(from, name string) {
		copyFile(t, from, filepath.Join(project, name))
		if out, err := exec.Command("git", "-C", project, "add", name).CombinedOutput(); err != nil {
			t.Fatalf("git add %s: %v\n%s", name, err, out)
		}
	}
	add(wheelFor(t, wheels(t), goarchTag[runtime.GOARCH]), "etlink.whl")
	if out, code := try("etlink-check"); code != 0 {
		t.Errorf("etlink-check on etlink's own wheel: exit %d:\n%s", code, out)
	}
	add(filepath.Join(root, "testdata/broken/bad.whl"), "bad.whl")
	if out, code := try("etlink-check"); code == 0 {
		t.Errorf("etlink-check on testdata/broken/bad.whl: exit 0, want a failure:\n%s", out)
	}
}

var installOnce struct {
	sync.Once
	bin string
	err error
}

// installed installs the wheel for this machine as action.yml's install
// step does (packaging/action-install.sh from a directory of wheels, no
// index) once, and returns the directory it put on GITHUB_PATH.
func installed(t *testing.T) string {
	t.Helper()
	dir := wheels(t)
	installOnce.Do(func() {
		githubPath := filepath.Join(scratch, "github-path")
		cmd := exec.Command("bash", filepath.Join(root, "packaging/action-install.sh"))
		cmd.Env = append(os.Environ(), "ETLINK_WHEEL_DIR="+dir, "ETLINK_BIN="+filepath.Join(scratch, "bin"), "GITHUB_PATH="+githubPath)
		out, err := cmd.CombinedOutput()
		path, _ := os.ReadFile(githubPath)
		installOnce.bin = strings.TrimSpace(string(path))
		if err != nil || installOnce.bin == "" {
			installOnce.err = fmt.Errorf("action-install.sh: %v (GITHUB_PATH %q)\n%s", err, path, out)
		}
	})
	if installOnce.err != nil {
		if _, err := exec.Command("python3", "-m", "venv", "--help").Output(); err != nil {
			testenv.Missing(t, "python3 -m venv (Debian: python3-venv)")
		}
		t.Fatal(installOnce.err)
	}
	return installOnce.bin
}

// TestAction runs action.yml's steps (the scripts its run: fields call,
// with the inputs as the environment it maps them to) on the demo
// corpus's wheel beside its torch: etlink alone goes on PATH, the SARIF
// report holds every finding, the annotations name them, and fail-on sets
// the exit status.
func TestAction(t *testing.T) {
	action, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, script := range []string{"action-install.sh", "action-check.sh"} {
		data, err := os.ReadFile(filepath.Join(root, "packaging", script))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(action, []byte(`run: '"$GITHUB_ACTION_PATH/packaging/`+script+`"'`)) {
			t.Errorf("action.yml does not run packaging/%s", script)
		}
		for _, v := range regexp.MustCompile(`\bETLINK_[A-Z_]+`).FindAll(data, -1) {
			if string(v) != "ETLINK_BIN" && !bytes.Contains(action, append(v, ':')) {
				t.Errorf("packaging/%s reads %s, which action.yml does not set", script, v)
			}
		}
	}

	bin := installed(t)
	if entries, _ := os.ReadDir(bin); len(entries) != 2 { // etlink and its venv
		t.Errorf("action-install.sh put %d entries in the PATH directory %s, want etlink (and the venv beside it)", len(entries), bin)
	}
	if out, code := shell(t, nil, "command -v etlink", bin); code != 0 || out != filepath.Join(bin, "etlink")+"\n" {
		t.Errorf("etlink on the action's PATH: %q, exit %d", out, code)
	}
	work := t.TempDir()
	whl := filepath.Join(work, "dist", "executorch-0.1-cp311-cp311-manylinux_2_28_x86_64.whl")
	zipDir(t, filepath.Join(root, "testdata/demo/wheel"), whl)
	torch, err := filepath.Abs(filepath.Join(root, "testdata/demo/torch"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join(root, "packaging/action-check.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		failOn string
		code   int
	}{{"warning", 1}, {"error", 0}} {
		env := []string{"ETLINK_WHEELS=dist/*.whl", "ETLINK_WITH=" + torch, "ETLINK_FAIL_ON=" + tc.failOn, "ETLINK_SARIF=etlink.sarif"}
		out, code := shell(t, env, fmt.Sprintf("cd %q && bash %q", work, script), bin)
		if code != tc.code || !regexp.MustCompile(`(?m)^::warning file=dist/executorch-[^,]*\.whl,title=ET301 `).MatchString(out) {
			t.Errorf("fail-on %s: exit %d, want %d and an ET301 warning annotation:\n%s", tc.failOn, code, tc.code, out)
		}
		var sarif struct {
			Runs []struct {
				Results []struct {
					RuleID string `json:"ruleId"`
				} `json:"results"`
			} `json:"runs"`
		}
		data, err := os.ReadFile(filepath.Join(work, "etlink.sarif"))
		if err == nil {
			err = json.Unmarshal(data, &sarif)
		}
		if err != nil || len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) < 2 || sarif.Runs[0].Results[0].RuleID != "ET301" {
			t.Errorf("fail-on %s: etlink.sarif (%v) holds %+v, want one run with the ET301 warning and notes", tc.failOn, err, sarif.Runs)
		}
	}
	env := []string{"ETLINK_WHEELS=missing/*.whl"}
	if out, code := shell(t, env, fmt.Sprintf("cd %q && bash %q", work, script), bin); code != 2 || !strings.Contains(out, "::error::etlink: no file matches missing/*.whl") {
		t.Errorf("no wheel matched: exit %d, want 2 and an error annotation:\n%s", code, out)
	}
}

func zipDir(t *testing.T, dir, whl string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(whl), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(whl)
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	if err := z.AddFS(os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func gitCommit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", "x"}} {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
