package program

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/internal/patience"
)

// ownerEnv marks a run of this test binary as the owner of a program: it
// starts stubborn, says the program's process ID on its standard output,
// and ends as the variable's value says (see owner).
const ownerEnv = "ETCDSIM_TEST_PROGRAM_OWNER"

// stubborn is a program that ignores its stdin closing and SIGTERM,
// SIGINT and SIGHUP: only SIGKILL ends it.
var stubborn = []string{"sh", "-c", "trap '' TERM INT HUP; exec sleep 300"}

func init() {
	if how := os.Getenv(ownerEnv); how != "" {
		os.Exit(owner(how))
	}
}

// owner starts stubborn and ends as how says: "exit" exits without closing
// it, once a line on its stdin says to; "wait" waits to be killed; "thread-exits" starts it from a goroutine
// whose OS thread then ends, says whether the program is still running a
// moment later ("alive" or "dead"), and waits to be killed. "wait" ends
// on SIGINT or SIGTERM as a run's process does, through a handler of its
// own: a process started in the background by a shell without job control
// inherits SIGINT ignored, and Go would keep it ignored.
func owner(how string) int {
	var p *prog
	var err error
	if how == "thread-exits" {
		done := make(chan struct{})
		go func() {
			defer close(done)
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			p, err = start(Config{Argv: stubborn}, "", nil)
		}()
		<-done
	} else {
		p, err = start(Config{Argv: stubborn}, "", nil)
	}
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println(p.cmd.Process.Pid)
	switch how {
	case "exit":
		// Exits once told to, after the test has seen the program run.
		bufio.NewReader(os.Stdin).ReadString('\n') //nolint:errcheck // any end of stdin is the word to exit
		return 0
	case "thread-exits":
		time.Sleep(300 * time.Millisecond) // the parent-death signal is sent at once if it is sent at all
		if running(p.cmd.Process.Pid) {
			fmt.Println("alive")
		} else {
			fmt.Println("dead")
		}
	}
	if how == "wait" {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
		<-sigs
		return 1
	}
	select {}
}

// running reports whether process pid runs: it exists and is not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, after, ok := strings.Cut(string(b), ") ")
	return ok && !strings.HasPrefix(after, "Z") && !strings.HasPrefix(after, "X")
}

// TestProgramDiesWithItsOwner starts a program that ignores its stdin
// closing and every signal but SIGKILL, from a process that then ends
// without closing it in each way a run's process can, and requires the
// program to be gone soon after: nothing it started outlives it.
func TestProgramDiesWithItsOwner(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	tests := []struct {
		name string
		how  string         // what the owner does (owner)
		sig  syscall.Signal // sent to the owner, 0 for none
	}{
		{name: "owner exits without closing", how: "exit"},
		{name: "owner killed with SIGKILL", how: "wait", sig: syscall.SIGKILL},
		{name: "owner ends on SIGTERM", how: "wait", sig: syscall.SIGTERM},
		{name: "owner ends on SIGINT", how: "wait", sig: syscall.SIGINT},
		{name: "the thread that started it ends first", how: "thread-exits", sig: syscall.SIGKILL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), ownerEnv+"="+tt.how)
			tell, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer tell.Close()
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer func() {
				cmd.Process.Kill() //nolint:errcheck // ended already, unless the test failed
				<-exited
			}()
			lines := bufio.NewScanner(out)
			if !lines.Scan() {
				t.Fatalf("the owner said nothing: %v", lines.Err())
			}
			pid, err := strconv.Atoi(lines.Text())
			if err != nil {
				t.Fatalf("the owner said %q, not the program's ID", lines.Text())
			}
			defer syscall.Kill(pid, syscall.SIGKILL) //nolint:errcheck // gone already, unless the test failed
			if tt.how == "thread-exits" {
				if !lines.Scan() || lines.Text() != "alive" {
					t.Errorf("the program was %q after the thread that started it ended; want alive while its owner runs", lines.Text())
				}
			}
			if !running(pid) {
				t.Fatalf("the program %d is not running before its owner ends", pid)
			}
			if tt.how == "exit" {
				if _, err := tell.Write([]byte("exit\n")); err != nil {
					t.Fatal(err)
				}
			}
			if tt.sig != 0 {
				if err := cmd.Process.Signal(tt.sig); err != nil {
					t.Fatal(err)
				}
			}
			// Real clock: these are OS processes and signals. The
			// waits scale with how busy the machine is.
			wait := patience.Scale(30 * time.Second)
			select {
			case <-exited:
				exited <- nil
			case <-time.After(wait):
				t.Fatalf("the owner did not end within %v", wait)
			}
			deadline := time.Now().Add(wait)
			for running(pid) {
				if time.Now().After(deadline) {
					t.Fatalf("the program %d still runs %v after its owner ended", pid, wait)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
