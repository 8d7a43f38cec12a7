package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/record"
)

// GET /api/runs filters by host, branch and commit, every run says where
// it came from, and a test's history says where each result came from.
func TestRunsByOrigin(t *testing.T) {
	f := newFixture(t)
	s := f.rec.Store()
	at := time.Now().Add(-time.Hour)
	for i, o := range []record.Origin{
		{Host: "ci-1", CI: "github-actions", Branch: "main", Commit: "1111111aaaa", BuildURL: "https://github.com/o/r/actions/runs/1"},
		{Host: "ci-2", Branch: "main", Commit: "1111111aaaa"},
		{Host: "laptop", Branch: "wip", Commit: "2222222bbbb"},
	} {
		status := record.StatusPassed
		if i == 1 {
			status = record.StatusFailed
		}
		t0 := at.Add(time.Duration(i) * time.Minute)
		if _, _, err := s.ImportRun(context.Background(), "k"+o.Host, record.Run{Kind: record.RunReport, Name: o.Host + ".xml", Started: t0, Ended: t0, Origin: o},
			[]*record.Test{{Name: "cart > totals", Kind: record.KindReport, Status: status, Time: t0}}); err != nil {
			t.Fatal(err)
		}
	}
	auth := []string{"Authorization", "Bearer " + token}
	for query, want := range map[string]string{
		"":                "laptop,ci-2,ci-1",
		"?branch=main":    "ci-2,ci-1",
		"?host=laptop":    "laptop",
		"?commit=1111111": "ci-2,ci-1",
		"?branch=main&host=ci-1&commit=1111111aaaa": "ci-1",
		"?branch=release": "",
	} {
		resp, body := f.do(t, "GET", "/api/runs"+query, nil, auth...)
		var got struct{ Runs []record.Run }
		if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &got) != nil {
			t.Fatalf("GET /api/runs%s: %d %s", query, resp.StatusCode, body)
		}
		var hosts []string
		for _, r := range got.Runs {
			hosts = append(hosts, r.Host)
		}
		if strings.Join(hosts, ",") != want {
			t.Errorf("GET /api/runs%s: %v, want %s", query, hosts, want)
		}
	}
	_, body := f.do(t, "GET", "/api/runs?host=ci-1", nil, auth...)
	if !strings.Contains(body, `"buildUrl":"https://github.com/o/r/actions/runs/1"`) || !strings.Contains(body, `"ci":"github-actions"`) {
		t.Errorf("a run's origin in GET /api/runs: %s", body)
	}
	_, body = f.do(t, "GET", "/api/tests/history?name=cart+%3E+totals", nil, auth...)
	var h record.History
	if err := json.Unmarshal([]byte(body), &h); err != nil {
		t.Fatal(err)
	}
	if h.Runs != 3 || h.Failures != 1 || h.Flips != 2 || len(h.Points) != 3 || h.Points[1].Host != "ci-2" || h.Points[1].Commit != "1111111aaaa" || h.Points[2].Branch != "wip" {
		t.Errorf("history across machines: %s", body)
	}
	_, body = f.do(t, "GET", "/api/overview", nil, auth...)
	if !strings.Contains(body, `"record":{"database":"sqlite"`) || !strings.Contains(body, `"paused":false`) {
		t.Errorf("the overview says how recording goes: %s", body)
	}
}

// With the shared record's database away the dashboard still answers:
// the overview says recording is paused and why (no password), and the
// record's reads answer 503.
func TestRecordAway(t *testing.T) {
	const pw = "hidden-pw"
	store, err := record.Open("postgres://team:" + pw + "@127.0.0.1:1/record?sslmode=disable&connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	f := fixtureOn(t, store)
	f.rec.Call(record.Entry{Start: time.Now(), Tool: "hash_text", Args: json.RawMessage(`{}`), Value: json.RawMessage(`{}`)})
	f.rec.Flush(context.Background())
	auth := []string{"Authorization", "Bearer " + token}
	resp, body := f.do(t, "GET", "/api/overview", nil, auth...)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"paused":true`) || !strings.Contains(body, `"pending":1`) || !strings.Contains(body, `"recordError"`) || strings.Contains(body, pw) {
		t.Errorf("the overview with the record away: %d %s", resp.StatusCode, body)
	}
	resp, body = f.do(t, "GET", "/api/runs", nil, auth...)
	if resp.StatusCode != http.StatusServiceUnavailable || strings.Contains(body, pw) {
		t.Errorf("GET /api/runs with the record away: %d %s, want 503 without the password", resp.StatusCode, body)
	}
}
