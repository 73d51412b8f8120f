package memberbin

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

	"github.com/etcdsim/etcdsim/internal/piddir"
)

// The member binary (the command etcdmember, below this package) is built
// from this module's source the first time a cluster of this process
// needs it, into a directory of its own under the system's temp dir, and
// reused by every later cluster of the process. RemoveBinary removes it; a
// directory left by a process that died without (Ctrl-C, say) is removed
// by the next build of any process.
//
// Why the built binary's path is process-wide (the one thing here that
// is): it is a build's output, like Go's own build cache, not state of a
// run. Every cluster of the process runs the same binary, built from the
// same source; a build per cluster would cost each one seconds, and the
// path carries nothing a cluster decides.

// memberPackage is the member binary's import path (a variable for a test
// of a build that fails).
var memberPackage = "github.com/etcdsim/etcdsim/internal/memberbin/etcdmember"

// binaryDirPrefix names the build directories; the building process's ID
// follows it.
const binaryDirPrefix = "etcdsim-member-"

var built struct {
	mu   sync.Mutex // guards path and dir
	path string     // the built binary, "" before the first build
	dir  string
}

// BinaryEnv names the environment variable that gives a built member
// binary's path, which a process then uses instead of building its own: a
// parent that starts many processes with clusters (simrun's runs) builds
// it once (Binary) and hands it down.
const BinaryEnv = "ETCDSIM_MEMBER_BINARY"

// Binary returns the path of the member binary: $ETCDSIM_MEMBER_BINARY if
// set, or the one this process built, which it builds first (go build,
// from this module's source) if it has not yet. RemoveBinary removes what
// it built.
func Binary(ctx context.Context) (string, error) {
	if p := os.Getenv(BinaryEnv); p != "" {
		if !fileExists(p) {
			return "", fmt.Errorf("memberbin: $%s is %s, which does not exist; unset it to have the member binary built", BinaryEnv, p)
		}
		return p, nil
	}
	built.mu.Lock()
	defer built.mu.Unlock()
	if built.path != "" {
		return built.path, nil
	}
	Sweep()
	dir, err := os.MkdirTemp("", binaryDirPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", fmt.Errorf("memberbin: a directory for the member binary: %w", err)
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
		return "", fmt.Errorf("memberbin: Config.MemberBinaries needs the member binary, and building it failed (%s, in %s): %w\n%s\nit needs the Go toolchain and this module's source; or leave MemberBinaries off to run members in this process",
			strings.Join(cmd.Args, " "), cmd.Dir, err, strings.TrimSpace(string(out)))
	}
	built.path, built.dir = path, dir
	return path, nil
}

// RemoveBinary removes the member binary this process built, if it built
// one; a later Binary builds it again. Call it when the last cluster of
// member binaries has closed — at the end of TestMain, say. It is safe to
// call at any time: running members keep the binary they started from.
func RemoveBinary() error {
	built.mu.Lock()
	defer built.mu.Unlock()
	if built.dir == "" {
		return nil
	}
	err := os.RemoveAll(built.dir)
	built.path, built.dir = "", ""
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

// Sweep removes the build directories, and the data directories of
// clusters of member binaries (DataDirPrefix), of processes that are gone.
// Every build calls it.
func Sweep() {
	piddir.Sweep(os.TempDir(), TempPrefixes()...)() //nolint:errcheck // what stays is swept next time
}

// TempPrefixes are the prefixes of the temp dirs this package makes — the
// built binary's and the data of clusters of member binaries — each
// followed by its maker's process ID, as package piddir names them.
func TempPrefixes() []string { return []string{binaryDirPrefix, dataDirPrefix} }

// dataDirPrefix names the temp dirs of clusters of member binaries; the
// process's ID follows it, so that a process that died without closing
// its clusters has them swept.
const dataDirPrefix = "etcdsim-bins-"

// DataDirPrefix is the prefix of a temp dir for the data of a cluster of
// member binaries, for os.MkdirTemp: Sweep removes it once this process is
// gone, should the process die before it can.
func DataDirPrefix() string { return dataDirPrefix + strconv.Itoa(os.Getpid()) + "-" }
