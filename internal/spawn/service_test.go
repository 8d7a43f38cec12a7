package spawn

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestServiceCancel(t *testing.T) {
	t.Setenv("FAKE_MODE", "silent")
	svc := NewService(Config{Dir: t.TempDir(), ClaudePath: fake(t), IdleTimeout: time.Minute, TotalTimeout: time.Minute})
	id, done, err := svc.Start(context.Background(), Options{Prompt: "wait", Repo: gitRepo(t), Secrets: []string{"FAKE_MODE"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if st, _ := svc.Status(id); st != nil && st.Phase == "running" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := svc.Cancel(id); err != nil {
		t.Fatal(err)
	}
	select {
	case st := <-done:
		if st.Status != "cancelled" || st.Phase != "done" {
			t.Errorf("after cancel: %+v", st)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the spawn did not end after cancel")
	}
	if st, err := svc.Status(id); err != nil || st.Status != "cancelled" {
		t.Errorf("saved status: %+v %v", st, err)
	}
	if err := svc.Cancel(id); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("cancel twice: %v", err)
	}
	_ = os.Getenv
}

// The CLI's login variable, where secrets are found, reaches the CLI's
// environment on every spawn without being asked for, is redacted from what
// the spawn keeps, and is never named to the agent; a gateway's address
// (ANTHROPIC_BASE_URL) reaches it as it is.
func TestServiceGivesTheCLIItsLogin(t *testing.T) {
	const key = "sk-ant-test-5b1c9d0e7f"
	t.Setenv("ANTHROPIC_API_KEY", key)
	t.Setenv("ANTHROPIC_BASE_URL", "http://gateway.invalid:8080")
	t.Setenv("FAKE_MODE", "login")
	svc := NewService(Config{Dir: t.TempDir(), ClaudePath: fake(t), IdleTimeout: time.Minute, TotalTimeout: time.Minute})
	_, done, err := svc.Start(context.Background(), Options{Prompt: "work", Repo: gitRepo(t), Secrets: []string{"FAKE_MODE"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var st *Status
	select {
	case st = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the spawn did not end")
	}
	if st.Status != "completed" || st.Result == nil || st.Result.Summary != "logged in with [REDACTED] at http://gateway.invalid:8080" {
		t.Fatalf("status: %+v %+v", st, st.Result)
	}
	if slices.Contains(st.Result.Manifest.Secrets, "ANTHROPIC_API_KEY") {
		t.Errorf("the login is named to the agent: %+v", st.Result.Manifest)
	}
	for _, f := range []string{st.Result.StreamLog, st.Result.StderrLog} {
		b, err := os.ReadFile(f)
		if err != nil || strings.Contains(string(b), key) {
			t.Errorf("%s holds the key (or is unreadable: %v)", f, err)
		}
	}
}
