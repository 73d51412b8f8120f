package cluster

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/internal/memberbin"
	"github.com/etcdsim/etcdsim/internal/patience"
)

// orphanHelperEnv makes this test binary, started by
// TestMemberBinariesDieWithParent, the parent that dies.
const orphanHelperEnv = "ETCDSIM_ORPHAN_HELPER"

// The members of a cluster die with the process that started it, even
// when it dies without closing the cluster (Ctrl-C, here SIGINT to a test
// binary; the parent-death signal and the closed stdin end them). Real
// clock: it is about OS processes. The cluster's temp dir, which the dead
// process could not remove, goes at the next build of the member binary.
func TestMemberBinariesDieWithParent(t *testing.T) {
	if os.Getenv(orphanHelperEnv) != "" {
		orphanHelper()
		return
	}
	if testing.Short() {
		t.Skip("builds the member binary and starts member binaries")
	}
	ctx := testCtx(t)
	prog, err := MemberBinary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestMemberBinariesDieWithParent$")
	cmd.Env = append(os.Environ(), orphanHelperEnv+"=1", MemberBinaryEnv+"="+prog)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	var dir string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "cluster dir: "); ok {
			dir = rest
		}
		if rest, ok := strings.CutPrefix(sc.Text(), "member pids:"); ok {
			for _, f := range strings.Fields(rest) {
				pid, err := strconv.Atoi(f)
				if err != nil {
					t.Fatal(err)
				}
				pids = append(pids, pid)
			}
			break
		}
	}
	if len(pids) != 3 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the helper reported member pids %v; want 3", pids)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	go func() { // the helper's output, until it is gone
		for sc.Scan() {
		}
	}()
	cmd.Wait()
	eventually(t, fmt.Sprintf("the member binaries %v are gone", pids), func() bool {
		for _, pid := range pids {
			if processAlive(pid) && !zombie(pid) {
				return false
			}
		}
		return true
	})
	// What the dead process left in the temp dir goes at the next build.
	if !fileExists(dir) {
		t.Fatalf("the helper's cluster dir %q is not there to sweep", dir)
	}
	memberbin.Sweep()
	if fileExists(dir) {
		t.Errorf("the dead helper's cluster dir %s outlived the sweep", dir)
	}
}

// zombie reports whether pid has ended and waits only for its parent,
// here init, to reap it.
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, after, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(after, "Z")
}

// orphanHelper starts a cluster of member binaries, says their pids and
// waits to be killed. Its start may take as long as the machine's load
// makes it: the test waits for it as long (testCtx).
func orphanHelper() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(DefaultStartTimeout))
	defer cancel()
	c, err := Start(ctx, loadProof(Config{Clock: ClockReal, MemberBinaries: true}))
	if err != nil {
		fmt.Fprintln(os.Stderr, "orphan helper:", err)
		os.Exit(1)
	}
	var pids []string
	for _, m := range c.Members() {
		pids = append(pids, strconv.Itoa(m.running().(*binServer).b.Pid()))
	}
	fmt.Println("cluster dir:", c.Dir())
	fmt.Println("member pids:", strings.Join(pids, " "))
	time.Sleep(time.Hour)
}
