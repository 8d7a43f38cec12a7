package testanalysis

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/record"
	"github.com/barrhawk/barrhawk/internal/testsupport/testsrv"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// A team's record on PostgreSQL: two runners record the same commits, one
// passing a test and the other failing it. test_flaky_detect fromRecord
// reads both machines' runs and names the test flaky; the test both pass
// is stable.
func TestFlakyDetectAcrossMachines(t *testing.T) {
	pg, err := testsrv.StartPostgres()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	shared := tooltest.UseRecordAt(t, pg.URL)
	start := time.Now().Add(-6 * time.Hour)
	for i, host := range []string{"runner-a", "runner-b", "runner-a", "runner-b"} {
		// Each runner writes through a store of its own, as a server on
		// its machine would.
		s, err := record.Open(pg.URL)
		if err != nil {
			t.Fatal(err)
		}
		commit := fmt.Sprintf("c%d", i/2)
		s.SetOrigin(record.Origin{Host: host, Branch: "main", Commit: commit})
		status := record.StatusPassed
		if host == "runner-b" {
			status = record.StatusFailed
		}
		at := start.Add(time.Duration(i) * time.Minute)
		tests := []*record.Test{
			{Name: "cart > totals", Kind: record.KindReport, Time: at, Status: status, DurationMs: 30},
			{Name: "cart > empties", Kind: record.KindReport, Time: at, Status: record.StatusPassed, DurationMs: 10},
		}
		if _, _, err := s.ImportRun(context.Background(), fmt.Sprintf("report:%s-%s", host, commit),
			record.Run{Kind: record.RunReport, Name: host + ".xml", Started: at, Ended: at}, tests); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	got := tooltest.MustRunObject(t, Tools(), "test_flaky_detect", `{"fromRecord":{"name":"cart > *"},"minRuns":2}`)
	flaky, _ := got["flakyTests"].([]any)
	if len(flaky) != 1 {
		t.Fatalf("flakyTests: %s, want cart > totals", tooltest.Marshal(got))
	}
	if f := flaky[0].(map[string]any); f["name"] != "cart > totals" || f["runs"] != 4.0 || f["flips"] != 3.0 {
		t.Errorf("flaky: %s, want cart > totals with 4 runs and 3 flips", tooltest.Marshal(f))
	}
	if got["stableTests"] != 1.0 {
		t.Errorf("stableTests: %v, want 1 (cart > empties)", got["stableTests"])
	}
	runs, _, err := shared.FindRuns(context.Background(), record.RunFilter{Commit: "c0"})
	if err != nil || len(runs) != 2 || runs[0].Host == runs[1].Host {
		t.Errorf("runs of commit c0: %+v %v, want one from each runner", runs, err)
	}
}
