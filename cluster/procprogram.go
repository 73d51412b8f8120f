package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// The member program (cluster/etcdmember) is built from this module's
// source the first time a cluster of this process needs it, into a
// directory of its own under the system's temp dir, and reused by every
// later cluster of the process. RemoveMemberProgram removes it; a
// directory left by a process that died without (Ctrl-C, say) is removed
// by the next build of any process.

// memberPackage is the member program's import path (a variable for a
// test of a build that fails).
var memberPackage = "github.com/etcdsim/etcdsim/cluster/etcdmember"

// programDirPrefix names the build directories; the building process's ID
// follows it.
const programDirPrefix = "etcdsim-member-"

var program struct {
	mu   sync.Mutex // guards path and dir
	path string     // the built program, "" before the first build
	dir  string
}

// MemberProgramEnv names the environment variable that gives a built
// member program's path, which this process then uses instead of building
// its own: a parent that starts many processes with clusters (simrun's
// runs) builds it once (MemberProgram) and hands it down.
const MemberProgramEnv = "ETCDSIM_MEMBER_PROGRAM"

// MemberProgram returns the path of the member program that clusters with
// Config.MemberProcesses run: $ETCDSIM_MEMBER_PROGRAM if set, or the one
// this process built, which it builds first (go build, from this module's
// source) if it has not yet. RemoveMemberProgram removes what it built.
func MemberProgram(ctx context.Context) (string, error) { return memberProgram(ctx) }

func memberProgram(ctx context.Context) (string, error) {
	if p := os.Getenv(MemberProgramEnv); p != "" {
		if !fileExists(p) {
			return "", fmt.Errorf("cluster: $%s is %s, which does not exist; unset it to have the member program built", MemberProgramEnv, p)
		}
		return p, nil
	}
	program.mu.Lock()
	defer program.mu.Unlock()
	if program.path != "" {
		return program.path, nil
	}
	sweepProgramDirs()
	dir, err := os.MkdirTemp("", programDirPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", fmt.Errorf("cluster: a directory for the member program: %w", err)
	}
	path := filepath.Join(dir, "etcdmember")
	goTool := "go"
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		goTool = p
	}
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", path, memberPackage)
	cmd.Dir = sourceDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("cluster: Config.MemberProcesses needs the member program, and building it failed (%s, in %s): %w\n%s\nit needs the Go toolchain and this module's source; or leave MemberProcesses off to run members in this process",
			strings.Join(cmd.Args, " "), cmd.Dir, err, strings.TrimSpace(string(out)))
	}
	program.path, program.dir = path, dir
	return path, nil
}

// RemoveMemberProgram removes the member program this process built for
// clusters with Config.MemberProcesses, if it built one; a later such
// cluster builds it again. Call it when the last of them has closed — at
// the end of TestMain, say. It is safe to call at any time: running
// members keep the program they started from.
func RemoveMemberProgram() error {
	program.mu.Lock()
	defer program.mu.Unlock()
	if program.dir == "" {
		return nil
	}
	err := os.RemoveAll(program.dir)
	program.path, program.dir = "", ""
	return err
}

// sourceDir is where go build runs: this package's source directory when
// it is there (a test, or a program run from the module's source), so the
// member is built from the same module; the working directory otherwise.
func sourceDir() string {
	_, file, _, ok := runtime.Caller(0)
	if ok && fileExists(file) {
		return filepath.Dir(file)
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// sweepProgramDirs removes the program directories, and the temp dirs of
// clusters of member processes, of processes that are gone.
func sweepProgramDirs() {
	for _, prefix := range []string{programDirPrefix, procClusterDirPrefix} {
		dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), prefix+"*"))
		for _, d := range dirs {
			pidText, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(d), prefix), "-")
			pid, err := strconv.Atoi(pidText)
			if err != nil || pid == os.Getpid() || processAlive(pid) {
				continue
			}
			os.RemoveAll(d)
		}
	}
}

// procClusterDirPrefix names the temp dirs of clusters of member
// processes; the process's ID follows it, so that a process that died
// without closing its clusters has them swept.
const procClusterDirPrefix = "etcdsim-procs-"

// tempDirPrefix is the prefix of the temp dir Start makes for cfg.
func tempDirPrefix(cfg Config) string {
	if cfg.MemberProcesses {
		return procClusterDirPrefix + strconv.Itoa(os.Getpid()) + "-"
	}
	return "etcdsim-"
}
