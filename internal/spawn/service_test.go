package spawn

import (
	"context"
	"os"
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
