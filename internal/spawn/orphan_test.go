package spawn

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/jobs"
)

// EndOrphan kills what an orphaned run left running (its agent, found by
// BARRHAWK_SPAWN_ID, of every attempt), saves the spawn as ended, and says
// how far it got: for a run whose integration began, what was pushed.
func TestEndOrphan(t *testing.T) {
	dir := t.TempDir()
	svc := NewService(Config{Dir: dir})
	for _, c := range []struct {
		name  string
		st    Status
		want  string
		agent bool
	}{
		{"running", Status{Phase: "running"}, "died while the agent ran (phase running); not run again", true},
		{"checking", Status{Phase: "integrating"}, "while checking spawn/checking-r1 against its base: nothing was pushed", false},
		{"pushing", Status{Phase: "integrating", Integration: &Integration{Step: stepPushing}}, "while pushing spawn/pushing-r1 to origin: the push may have landed", false},
		{"pushed", Status{Phase: "integrating", Integration: &Integration{Pushed: true}}, "spawn/pushed-r1 was pushed to origin; no pull request was recorded", false},
		{"opened", Status{Phase: "integrating", Integration: &Integration{Pushed: true, PRURL: "https://github.com/a/b/pull/7", PRNumber: 7}}, "pull request #7 opened: https://github.com/a/b/pull/7", false},
		{"ended", Status{Phase: "done", Status: "completed"}, "its run had ended (completed)", false},
	} {
		st := c.st
		st.ID = c.name
		if err := os.MkdirAll(filepath.Join(dir, c.name, "attempt-2"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := svc.save(&st); err != nil {
			t.Fatal(err)
		}
		var agent *exec.Cmd
		if c.agent {
			// The second attempt's agent, in a process group of its own.
			agent = exec.Command("sleep", "300")
			agent.Env = []string{"BARRHAWK_SPAWN_ID=" + runID(c.name, 2)}
			agent.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := agent.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond) // its environment is readable once it has exec'ed
		}
		reason := svc.EndOrphan(context.Background(), 9, jobs.AgentJob{SpawnID: c.name, Repo: "/r"})
		if !strings.Contains(reason, c.want) {
			t.Errorf("%s: %q, want it to say %q", c.name, reason, c.want)
		}
		if agent != nil {
			if err := agent.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
				t.Errorf("%s: the agent was not killed: %v", c.name, err)
			}
		}
		saved, err := svc.read(c.name)
		if err != nil || saved.Phase != "done" {
			t.Errorf("%s: saved %+v %v", c.name, saved, err)
		} else if c.name != "ended" && (saved.Status != "error" || saved.Error != reason || saved.JobID != 9) {
			t.Errorf("%s: saved %+v", c.name, saved)
		}
	}
}
