package queue

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/jobs"
)

// A job's end is in the queue (and the journal) once the runner says it
// ended, before the worker returns: River alone records it later, in a
// batch, and a worker killed in between left a finished job running, to be
// run again. A failure on the last attempt is recorded so too, once.
func TestEndIsDurableBeforeTheWorkerReturns(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "queue.db")
	journal := t.TempDir()
	ended := make(chan int64, 4)
	release := make(chan struct{})
	q, err := Open(ctx, path, Options{Workers: 2, ID: "host-1-1-1", Journal: journal,
		Run: func(_ context.Context, id int64, job jobs.CommandJob, end func(*jobs.Outcome)) (*jobs.Outcome, error) {
			out := &jobs.Outcome{Status: "succeeded", Artifacts: []string{"/a/out.txt"}}
			if job.Test[0] == "false" {
				out = &jobs.Outcome{Status: "failed", Phase: "test", Command: "false", ExitCode: 1, ExitStatus: "exit status 1"}
			}
			end(out)
			ended <- id
			<-release // the cleanup, where a worker may be killed
			out.CleanupError = "the worktree was busy"
			return out, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	ok, _ := q.Submit(ctx, jobs.CommandJob{Repo: "/r", Test: []string{"true"}})
	bad, _ := q.Submit(ctx, jobs.CommandJob{Repo: "/r", Test: []string{"false"}})
	for range 2 {
		<-ended
	}
	for id, want := range map[int64]string{ok: "completed", bad: "discarded"} {
		in, err := q.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if in.State != want || in.Outcome == nil || in.FinalizedAt == nil {
			t.Fatalf("job %d while its worker cleans up: %s %+v, want %s with its outcome", id, in.State, in.Outcome, want)
		}
		var e Ending
		b, err := os.ReadFile(JournalPath(journal, id))
		if err != nil || json.Unmarshal(b, &e) != nil || e.Worker != "host-1-1-1" || e.Attempt != 1 || e.Job != id {
			t.Errorf("job %d's journal: %v %s", id, err, b)
		}
	}
	if in, _ := q.Get(ctx, ok); len(in.Outcome.Artifacts) != 1 {
		t.Errorf("the artifacts are not in the recorded outcome: %+v", in.Outcome)
	}
	if in, _ := q.Get(ctx, bad); in.Outcome.ExitCode != 1 || len(in.Errors) != 1 || !strings.Contains(in.Errors[0], "failed in test") {
		t.Errorf("the failed job: %+v %v", in.Outcome, in.Errors)
	}
	close(release)
	if err := q.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	// River's own completion afterwards changes no state and adds no
	// second error; the outcome gains what the cleanup said.
	for id, want := range map[int64]string{ok: "completed", bad: "discarded"} {
		in, _ := q.Get(ctx, id)
		if in.State != want || in.Outcome.CleanupError != "the worktree was busy" || len(in.Errors) > 1 {
			t.Errorf("job %d after its worker returned: %s %+v %v", id, in.State, in.Outcome, in.Errors)
		}
	}
}

// The jobs of a gone worker: one whose end it journaled is recorded as it
// ended (a success completed, a failure with attempts left retried), never
// run again; one it did not is handed back; an agent job is ended with the
// reason the spawn side gives, never run again. A journal of another
// attempt or worker does not count.
func TestHandBackReadsTheJournal(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "queue.db")
	journal := t.TempDir()
	release := make(chan struct{})
	started := make(chan int64, 8)
	block := func(id int64) { started <- id; <-release }
	stuck, err := Open(ctx, path, Options{Workers: 4, ID: "host-9-1-1",
		Run: func(_ context.Context, id int64, _ jobs.CommandJob, _ func(*jobs.Outcome)) (*jobs.Outcome, error) {
			block(id)
			return nil, errors.New("killed")
		},
		RunAgent: func(_ context.Context, id int64, _ jobs.AgentJob) (any, string, error) {
			block(id)
			return nil, "", errors.New("killed")
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Close()
	if err := stuck.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { close(release); stuck.Stop(ctx) }()
	client, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	done, _ := client.Submit(ctx, jobs.CommandJob{Repo: "/r", Test: []string{"true"}})
	failed, _ := client.Submit(ctx, jobs.CommandJob{Repo: "/r", Test: []string{"false"}, Retries: 1})
	none, _ := client.Submit(ctx, jobs.CommandJob{Repo: "/r", Test: []string{"true"}})
	agent, _ := client.SubmitAgent(ctx, jobs.AgentJob{SpawnID: "s1", Prompt: "fix it", Repo: "/r"})
	for range 4 {
		<-started
	}
	out, _ := json.Marshal(jobs.Outcome{Status: "succeeded", Artifacts: []string{"/a/x"}})
	for _, e := range []Ending{
		{Job: done, Worker: "host-9-1-1", Attempt: 1, Status: "succeeded", Output: out},
		{Job: failed, Worker: "host-9-1-1", Attempt: 1, Status: "failed", Error: "failed in test: false (exit status 1)"},
		{Job: none, Worker: "host-9-1-1", Attempt: 2, Status: "succeeded"}, // another attempt's
	} {
		e.At = time.Now().UTC()
		if err := writeJournal(journal, &e); err != nil {
			t.Fatal(err)
		}
	}
	var told []string
	got, err := HandBack(ctx, client, Recovery{Gone: func(w string) bool { return w == "host-9-1-1" }, Journal: journal,
		EndAgent: func(_ context.Context, id int64, job jobs.AgentJob) string {
			told = append(told, job.SpawnID)
			return "it died during integration; s1 was pushed"
		}})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got.Ended)
	if !slices.Equal(got.Ended, []int64{done, failed}) || !slices.Equal(got.HandedBack, []int64{none}) || !slices.Equal(got.Agents, []int64{agent}) {
		t.Fatalf("recovered %+v", got)
	}
	if !slices.Equal(told, []string{"s1"}) {
		t.Errorf("EndAgent told of %v", told)
	}
	checks := map[int64]func(*Info) bool{
		done: func(in *Info) bool {
			return in.State == "completed" && in.Outcome != nil && len(in.Outcome.Artifacts) == 1
		},
		failed: func(in *Info) bool {
			return in.State == "retryable" && len(in.Errors) == 1 && strings.Contains(in.Errors[0], "failed in test")
		},
		none: func(in *Info) bool { return in.State == "available" && strings.Contains(in.Errors[0], "handed back") },
		agent: func(in *Info) bool {
			return in.State == "discarded" && len(in.Errors) == 1 && strings.Contains(in.Errors[0], "is gone; it died during integration; s1 was pushed")
		},
	}
	for id, ok := range checks {
		in, err := client.Get(ctx, id)
		if err != nil || !ok(in) {
			t.Errorf("job %d (%s): %v %s %+v %v", id, in.Kind, err, in.State, in.Outcome, in.Errors)
		}
	}
}
