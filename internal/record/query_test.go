package record

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// importRuns records n runs of kind RunReport, an hour apart from start,
// each with the tests tests(i) gives.
func importRuns(t *testing.T, s *Store, start time.Time, n int, tests func(i int) []*Test) []int64 {
	t.Helper()
	var ids []int64
	for i := range n {
		at := start.Add(time.Duration(i) * time.Hour)
		ts := tests(i)
		for _, x := range ts {
			x.Time, x.Kind = at, KindReport
		}
		id, done, err := s.ImportRun(context.Background(), fmt.Sprintf("report:run-%d", i),
			Run{Kind: RunReport, Name: fmt.Sprintf("run-%d.xml (junit)", i), Started: at, Ended: at}, ts)
		if err != nil || !done {
			t.Fatalf("import run %d: %v %v", i, done, err)
		}
		ids = append(ids, id)
	}
	return ids
}

func TestHistories(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	start := time.Now().Add(-10 * time.Hour).Truncate(time.Second)
	importRuns(t, s, start, 6, func(i int) []*Test {
		status := StatusPassed
		if i%2 == 1 {
			status = StatusFailed
		}
		return []*Test{
			{Name: "cart > adds", Status: status, DurationMs: float64(10 + i)},
			{Name: "cart > removes", Status: StatusPassed, DurationMs: 5},
			{Name: "login > works", Status: StatusSkipped},
		}
	})

	hs, err := s.Histories(ctx, "cart > *", start.Add(-time.Minute), 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 2 || hs[0].Name != "cart > adds" || hs[1].Name != "cart > removes" {
		t.Fatalf("histories %+v", hs)
	}
	adds := hs[0]
	if len(adds.Points) != 6 || adds.Runs != 6 || adds.Failures != 3 || adds.Flips != 5 || adds.Flakiness != 1 {
		t.Errorf("adds %+v", adds)
	}
	for i, p := range adds.Points {
		if p.DurationMs != float64(10+i) || !p.Time.Equal(start.Add(time.Duration(i)*time.Hour)) {
			t.Errorf("point %d: %+v", i, p)
		}
	}
	if hs[1].Flips != 0 || hs[1].Failures != 0 || hs[1].Runs != 6 {
		t.Errorf("removes %+v", hs[1])
	}

	// The latest perTest of each test, oldest first.
	hs, err = s.Histories(ctx, "cart > adds", start.Add(-time.Minute), 2)
	if err != nil || len(hs) != 1 || len(hs[0].Points) != 2 || hs[0].Points[0].DurationMs != 14 || hs[0].Points[1].DurationMs != 15 {
		t.Errorf("last 2: %+v, %v", hs, err)
	}
	// since cuts the older results.
	hs, err = s.Histories(ctx, "*", start.Add(4*time.Hour), 50)
	if err != nil || len(hs) != 3 || len(hs[0].Points) != 2 {
		t.Errorf("since: %+v, %v", hs, err)
	}
	// ? is one character, case matters, no match is an empty list.
	for pattern, want := range map[string]int{"cart > ?dds": 1, "Cart*": 0, "*works": 1, "login": 0, "": 3} {
		hs, err := s.Histories(ctx, pattern, time.Time{}, 0)
		if err != nil || len(hs) != want {
			t.Errorf("pattern %q: %d histories, want %d (%v)", pattern, len(hs), want, err)
		}
	}
}

func TestLatestRunWithAndRunTests(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	start := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	ids := importRuns(t, s, start, 3, func(i int) []*Test {
		ts := []*Test{{Name: "api > get", Status: StatusPassed, DurationMs: 100}}
		if i < 2 {
			ts = append(ts, &Test{Name: "ui > click", Status: StatusPassed, DurationMs: 30})
		}
		return ts
	})
	r, err := s.LatestRunWith(ctx, "ui > *", 0)
	if err != nil || r.ID != ids[1] {
		t.Fatalf("latest ui run: %+v, %v", r, err)
	}
	if r, err = s.LatestRunWith(ctx, "ui > *", ids[1]); err != nil || r.ID != ids[0] {
		t.Errorf("ui run before %d: %+v, %v", ids[1], r, err)
	}
	if _, err := s.LatestRunWith(ctx, "ui > *", ids[0]); !errors.Is(err, ErrNotFound) {
		t.Errorf("before the first: %v", err)
	}
	if _, err := s.LatestRunWith(ctx, "none", 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("no match: %v", err)
	}
	if _, err := s.LatestRunWith(ctx, "*", 999); !errors.Is(err, ErrNotFound) {
		t.Errorf("before a run not recorded: %v", err)
	}
	tests, err := s.RunTests(ctx, ids[0], "api*")
	if err != nil || len(tests) != 1 || tests[0].Name != "api > get" {
		t.Errorf("RunTests: %+v, %v", tests, err)
	}
	if info, err := s.RunInfo(ctx, ids[2]); err != nil || info.Name != "run-2.xml (junit)" || info.Passed != 1 {
		t.Errorf("RunInfo: %+v, %v", info, err)
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"":                     now.Add(-DefaultSince),
		"168h":                 now.Add(-168 * time.Hour),
		"7d":                   now.Add(-7 * 24 * time.Hour),
		"1.5d":                 now.Add(-36 * time.Hour),
		"2026-05-01T00:00:00Z": time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC),
	} {
		got, err := ParseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"yesterday", "-3h", "NaNd", "-1d", "2026-05-01"} {
		if _, err := ParseSince(bad, now); err == nil || !strings.Contains(err.Error(), "RFC 3339") {
			t.Errorf("ParseSince(%q): %v", bad, err)
		}
	}
}
