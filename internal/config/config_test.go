package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPrecedence(t *testing.T) {
	p := writeFile(t, "igors:\n  maxWorkers: 3\n  idleTimeout: 300000\n  strategy: single\ntools:\n  defaultTimeout: 10s\n")
	cfg, err := Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Igors.MaxWorkers != 3 || cfg.Igors.IdleTimeout != 5*time.Minute || cfg.Igors.Strategy != "single" || cfg.Tools.DefaultTimeout != 10*time.Second {
		t.Fatalf("file: %+v", cfg)
	}
	if cfg.Igors.HeartbeatInterval != 5*time.Second {
		t.Fatalf("defaults lost: %+v", cfg.Igors)
	}
	t.Setenv("DOCTOR_MAX_IGORS", "5")
	t.Setenv("DOCTOR_TOOL_TIMEOUT", "1500")
	t.Setenv("DOCTOR_LOG_LEVEL", "debug")
	cfg, err = Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Igors.MaxWorkers != 5 || cfg.Tools.DefaultTimeout != 1500*time.Millisecond || cfg.Log.Level != "debug" {
		t.Fatalf("env: %+v", cfg)
	}
	t.Setenv("BARRHAWK_MAX_IGORS", "6") // BARRHAWK_* after DOCTOR_*
	cfg, err = Load(p, map[string]any{"tools.defaultTimeout": "2s"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Igors.MaxWorkers != 6 || cfg.Tools.DefaultTimeout != 2*time.Second {
		t.Fatalf("flags: %+v", cfg)
	}
}

func TestBadConfigNamesTheKey(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"igors:\n  maxWorkers: 0\n", "igors.maxWorkers"},
		{"igors:\n  strategy: fastest\n", "round-robin"},
		{"igors:\n  idleTimeout: soon\n", "Go duration"},
		{"igors:\n  maxWorkrs: 3\n", "maxWorkrs"},
		{"log:\n  level: loud\n", "log.level"},
		{"igors: [\n", "barrhawk.yaml"},
		{"tools:\n  listProfile: everything\n", "tools.listProfile"},
		{"tools:\n  maxResultBytes: 10\n", "tools.maxResultBytes"},
		{"tools:\n  maxResultHardBytes: 1GiB\n", "tools.maxResultHardBytes"},
		{"mcp:\n  maxMessageBytes: 1KB\n", "mcp.maxMessageBytes"},
		{"igors:\n  browserTestIdAttribute: \"data test\"\n", "igors.browserTestIdAttribute"},
	} {
		_, err := Load(writeFile(t, tc.body), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: want an error mentioning %q, got %v", tc.body, tc.want, err)
		}
	}
	if c, err := Load(writeFile(t, "tools:\n  listProfile: mine\n  profiles:\n    mine: [hash_text, \"assert_*\"]\n"), nil); err != nil || c.Tools.Profiles["mine"][1] != "assert_*" {
		t.Errorf("a profile of one's own: %v %v", c.Tools.Profiles, err)
	}
	if _, err := Load("/nonexistent/barrhawk.yaml", nil); err == nil || !strings.Contains(err.Error(), "/nonexistent/barrhawk.yaml") {
		t.Errorf("missing file: %v", err)
	}
}

func TestSearchOrder(t *testing.T) {
	dir := t.TempDir()
	home := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", home)
	t.Setenv("BARRHAWK_CONFIG", "")
	if err := os.MkdirAll(filepath.Join(home, ".barrhawk"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".barrhawk", FileName), []byte("igors:\n  maxWorkers: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load("", nil)
	if err != nil || cfg.Igors.MaxWorkers != 7 {
		t.Fatalf("home config: %+v %v", cfg.Igors, err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("igors:\n  maxWorkers: 9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err = Load("", nil)
	if err != nil || cfg.Igors.MaxWorkers != 9 || cfg.File != FileName {
		t.Fatalf("working-directory config: %+v %v", cfg, err)
	}
}

// TestHomeMovesEveryStatePath: BARRHAWK_HOME moves every state path not set
// on its own (the queue, job logs and artifacts, spawns and secrets
// included), and one set explicitly stays.
func TestHomeMovesEveryStatePath(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("BARRHAWK_CONFIG", "")
	home := t.TempDir()
	t.Setenv("BARRHAWK_HOME", home)
	cfg, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]string{"tools.dynamicDir": cfg.Tools.DynamicDir, "tools.snapshotsDir": cfg.Tools.SnapshotsDir,
		"tools.fsRoot": cfg.Tools.FSRoot, "tools.screenshotDir": cfg.Tools.ScreenshotDir, "workers.db": cfg.Workers.DB,
		"workers.logDir": cfg.Workers.LogDir, "workers.artifactDir": cfg.Workers.ArtifactDir, "spawn.dir": cfg.Spawn.Dir,
		"spawn.secretsDir": cfg.Spawn.SecretsDir} {
		if !strings.HasPrefix(p, home+string(filepath.Separator)) {
			t.Errorf("%s = %s, not under BARRHAWK_HOME %s", name, p, home)
		}
	}
	if err := os.WriteFile(FileName, []byte("workers:\n  db: /elsewhere/q.db\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if cfg, err := Load("", nil); err != nil || cfg.Workers.DB != "/elsewhere/q.db" || !strings.HasPrefix(cfg.Spawn.Dir, home) {
		t.Errorf("an explicit workers.db: %q, spawn.dir %q, %v", cfg.Workers.DB, cfg.Spawn.Dir, err)
	}
}

// dashboard.db takes a postgres:// URL and keeps it when the home moves;
// a URL of another scheme is refused without its password shown.
func TestDashboardDBURL(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("BARRHAWK_CONFIG", "")
	t.Setenv("BARRHAWK_HOME", t.TempDir())
	url := "postgres://team:pw-hidden@db.example:5432/record"
	if err := os.WriteFile(FileName, []byte("dashboard:\n  db: "+url+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load("", nil)
	if err != nil || cfg.Dashboard.DB != url {
		t.Fatalf("dashboard.db from the file: %q %v", cfg.Dashboard.DB, err)
	}
	_, err = Load("", map[string]any{"dashboard.db": "mysql://team:pw-hidden@db.example/record"})
	if err == nil || !strings.Contains(err.Error(), "dashboard.db") || !strings.Contains(err.Error(), "postgres://") || strings.Contains(err.Error(), "pw-hidden") {
		t.Errorf("a mysql:// dashboard.db: %v, want an error naming the key and what to write, without the password", err)
	}
}
