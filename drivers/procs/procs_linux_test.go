//go:build linux

package procs

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// envSleep makes a re-executed test binary sleep (TestMain).
const envSleep = "PROCS_TEST_SLEEP"

func TestMain(m *testing.M) {
	if os.Getenv(envSleep) != "" {
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// state is the state letter of pid ('Z' for a zombie), 0 when it is gone.
func state(pid int) byte {
	p, ok := readProc(pid)
	if !ok {
		return 0
	}
	return p.state
}

func age(t *testing.T, d *TempDir) {
	t.Helper()
	old := time.Now().Add(-2 * staleAfter)
	if err := os.Chtimes(filepath.Join(d.Path, LockFile), old, old); err != nil {
		t.Fatal(err)
	}
}

// A sweep removes the folder whose owner is gone, once its lock is stale,
// and kills the process still running there; it leaves a live owner's
// folder, a fresh one and one without a lock.
func TestSweepStale(t *testing.T) {
	root := t.TempDir()
	t.Setenv("TMPDIR", root)
	mk := func(pattern string) *TempDir {
		d, err := MkdirTemp(pattern)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = d.Remove() })
		return d
	}
	live, dead, young := mk("agentapp-live-"), mk("agentapp-dead-"), mk("agentapp-young-")
	// An owner that died lets its lock go.
	_ = dead.lock.Close()
	_ = young.lock.Close()
	age(t, live)
	age(t, dead)
	lockless := filepath.Join(root, "agentapp-lockless")
	if err := os.Mkdir(lockless, 0o700); err != nil {
		t.Fatal(err)
	}
	// A host of the dead run still runs there.
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envSleep+"=1", "TMPDIR="+dead.Path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	_ = cmd.Process.Release() // the sweep reaps it
	// Someone looking into the folder is no process of the run.
	onlooker := exec.Command(os.Args[0])
	onlooker.Env = append(os.Environ(), envSleep+"=1", "PWD="+dead.Path)
	if err := onlooker.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = onlooker.Process.Kill()
		_ = onlooker.Wait()
	})

	sw, err := SweepStale("")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sw.Folders, []string{dead.Path}) || sw.Killed != 1 {
		t.Errorf("swept %v, killed %d; want %s and its one process", sw.Folders, sw.Killed, dead.Path)
	}
	if s := state(onlooker.Process.Pid); s == 0 || s == 'Z' {
		t.Errorf("the onlooker %d was killed", onlooker.Process.Pid)
	}
	if s := state(pid); s != 0 {
		t.Errorf("process %d of the dead run is in state %c, want gone (killed and reaped)", pid, s)
	}
	for _, dir := range []string{live.Path, young.Path, lockless} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s was swept: %v", dir, err)
		}
	}
	if _, err := os.Stat(dead.Path); !os.IsNotExist(err) {
		t.Errorf("%s is still there (%v)", dead.Path, err)
	}
}

func TestMkdirTempNeedsThePrefix(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	if d, err := MkdirTemp("other-"); err == nil {
		_ = d.Remove()
		t.Fatal("a folder without the prefix was made")
	}
}
