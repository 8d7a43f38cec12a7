// Package config loads BarrHawk's configuration: defaults, then the file
// barrhawk.yaml (the working directory first, then ~/.barrhawk/), then the
// environment (DOCTOR_* and BARRHAWK_*), then command-line flags; each
// overrides the one before. Durations are written as Go durations ("30s",
// "5m") or as integers of milliseconds (the seeds' style: 300000).
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/v2"
)

// FileName is the name of the config file.
const FileName = "barrhawk.yaml"

// Config is the whole configuration.
type Config struct {
	// Igors configures the Igor pool: the worker processes that run the
	// tools, how many, how a call picks one, and when one is replaced.
	Igors Igors `koanf:"igors"`
	// Tools configures tool calls (timeouts, result bounds, what
	// tools/list shows, the allowed roots) and dynamic tools.
	Tools Tools `koanf:"tools"`
	// Log configures logging. Logs go to stderr, never stdout.
	Log Log `koanf:"log"`
	// Admin configures the Beta HTTP admin API (serve --admin ADDR).
	Admin Admin `koanf:"admin"`
	// MCP configures the MCP protocol layer of the front, on every
	// transport: message size, and the token and sessions of streamable
	// HTTP.
	MCP MCP `koanf:"mcp"`
	// Intent configures intent analysis (doctor-spec.md).
	Intent Intent `koanf:"intent"`
	// Events configures the front's event bus (events_recent, log
	// notifications).
	Events Events `koanf:"events"`
	// Spawn configures sub-agents (spawn_agent, barrhawk spawn).
	Spawn Spawn `koanf:"spawn"`
	// Workers configures the worker pool and its job queue (task_*).
	Workers Workers `koanf:"workers"`
	// Gateway configures the MCP gateway (mcp_*): other MCP servers behind
	// the front.
	Gateway Gateway `koanf:"gateway"`
	// Docker configures the Docker and Compose tools.
	Docker Docker `koanf:"docker"`
	// GitHub configures the GitHub tools and spawn's pull requests.
	GitHub GitHub `koanf:"github"`
	// Dashboard configures the web UI (serve --dashboard) and the record
	// of calls and test runs it shows.
	Dashboard Dashboard `koanf:"dashboard"`
	// Home is where persistent state lives (default ~/.barrhawk).
	Home string `koanf:"home"`

	// File is the config file that was loaded, or "" if none.
	File string `koanf:"-"`
}

// Igors configures the Igor pool.
type Igors struct {
	// MaxWorkers caps the number of Igors. Default: the number of CPU cores.
	MaxWorkers int `koanf:"maxWorkers"`
	// Strategy picks the Igor for a call: "round-robin" (default) spreads
	// calls over up to MaxWorkers Igors (quick tools keep to one); "single" sends every call to one;
	// "specialized" gives each domain (browser, database, filesystem,
	// github, docker) Igors of its own that load only its tools, so a
	// browser call goes to the Igor holding the browser; "swarm" keeps
	// MaxWorkers Igors warm for bursts of parallel work; "squad" gives each
	// squad Igors of its own (its size), loading its tool bag.
	Strategy string `koanf:"strategy"`
	// MaxTasksPerIgor caps the calls in flight on one Igor; further calls
	// wait for room (or a new Igor). Default 32.
	MaxTasksPerIgor int `koanf:"maxTasksPerIgor"`
	// IdleTimeout stops an Igor that has had no task for this long. Default 5m.
	IdleTimeout time.Duration `koanf:"idleTimeout"`
	// HeartbeatInterval is how often each Igor is pinged; one that misses
	// three pongs in a row is replaced. Default 5s.
	HeartbeatInterval time.Duration `koanf:"heartbeatInterval"`
	// SpawnDelay is the respawn delay after a second crash in a row (the
	// first is replaced at once); it doubles with each crash in a row
	// after that, up to BackoffMax. Default 100ms.
	SpawnDelay time.Duration `koanf:"spawnDelay"`
	// BackoffMax caps the respawn delay. Default 5s.
	BackoffMax time.Duration `koanf:"backoffMax"`
	// SpawnTimeout bounds spawn to ready. Default 10s.
	SpawnTimeout time.Duration `koanf:"spawnTimeout"`
	// Spare keeps one Igor process started ahead of need while the pool
	// has Igors, so that replacing one that died, or starting one more,
	// costs its handshake (about a millisecond) instead of an exec.
	// Default true.
	Spare bool `koanf:"spare"`
	// ShutdownGrace is how long an Igor has to exit after shutdown or
	// SIGTERM before it is killed. Default 3s.
	ShutdownGrace time.Duration `koanf:"shutdownGrace"`
	// StopGrace is how long a tool may run past its timeout before its Igor
	// asks to be replaced. Default 1s.
	StopGrace time.Duration `koanf:"stopGrace"`
	// ToolBag lists the glob patterns of the tools each Igor process loads,
	// such as ["browser_*"]; empty: all. It is not what tools/list shows:
	// that is tools.listProfile.
	ToolBag []string `koanf:"toolBag"`
	// MemoryLimit bounds each Igor's memory, in bytes or with a unit
	// ("512MiB"); a tool that goes over it costs its Igor, and its call
	// answers MEMORY_LIMIT. 0 turns the bound off. Default 512MiB.
	MemoryLimit int64 `koanf:"memoryLimit"`
	// SquadIdleTimeout dissolves a squad that has run nothing for this
	// long. Default 30m.
	SquadIdleTimeout time.Duration `koanf:"squadIdleTimeout"`
	// BrowserHeadless runs the Igors' browsers without a window. Default
	// true; browser_launch {headless: false} asks for a window per call.
	BrowserHeadless bool `koanf:"browserHeadless"`
	// BrowserIdleTimeout closes an Igor's browser (every tab) when no
	// browser tool has used it for this long; the next use starts a new
	// one. Default 10m; 0 keeps it open.
	BrowserIdleTimeout time.Duration `koanf:"browserIdleTimeout"`
	// BrowserTestIDAttribute is the attribute Playwright's getByTestId
	// reads (its selectors.setTestIdAttribute): a selector engine of that
	// name, and internal:testid=, use it. Default data-testid.
	BrowserTestIDAttribute string `koanf:"browserTestIdAttribute"`
}

// Tools configures tool calls and dynamic tools.
type Tools struct {
	// DefaultTimeout bounds a call whose tool sets no timeout. Default 30s.
	DefaultTimeout time.Duration `koanf:"defaultTimeout"`
	// EnableDynamic turns dynamic (TypeScript) tools on. Default true.
	EnableDynamic bool `koanf:"enableDynamic"`
	// HotReload watches DynamicDir and reloads tools on change. Default true.
	HotReload bool `koanf:"hotReload"`
	// DynamicDir holds the dynamic tools. Default <home>/dynamic-tools.
	DynamicDir string `koanf:"dynamicDir"`
	// SnapshotsDir holds snapshots of DynamicDir. Default <home>/snapshots.
	SnapshotsDir string `koanf:"snapshotsDir"`
	// ScreenshotDir is where browser_screenshot's savePath, browser_pdf_save
	// and browser_stop_tracing write (paths inside it only). Default
	// <home>/screenshots.
	ScreenshotDir string `koanf:"screenshotDir"`
	// SnapshotKeep is how many snapshots are kept. Default 20.
	SnapshotKeep int `koanf:"snapshotKeep"`
	// FSRoot confines ctx.fs of tools with the filesystem permission.
	// Default <home>/tool-files.
	FSRoot string `koanf:"fsRoot"`
	// RecoveryCrashes Igor crashes within RecoveryWindow, while dynamic tools
	// are loaded, roll the tools back to the last snapshot. Default 5 in 1m.
	RecoveryCrashes int           `koanf:"recoveryCrashes"`
	RecoveryWindow  time.Duration `koanf:"recoveryWindow"`
	// ListProfile is what tools/list shows a new session (its list bag,
	// not the Igor tool bag igors.toolBag): a profile of Profiles or the
	// built-in ones (core, qa, data, text, browser, database, files), or
	// "all". Every tool
	// stays callable whatever is listed. Default "core"; serve --all-tools
	// sets "all".
	ListProfile string `koanf:"listProfile"`
	// Profiles adds tool list profiles (or replaces a built-in one): a name
	// and its members, tool names, globs ("assert_*") or categories
	// ("category:meta").
	Profiles map[string][]string `koanf:"profiles"`
	// Roots are directories the tools that read the machine's files
	// (plan_read, the fs_* tools, db_sqlite_open, the report readers) may
	// use, besides the working directory and the roots
	// the MCP client declares. Default none.
	Roots []string `koanf:"roots"`
	// MaxResultBytes cuts a result larger than this, in bytes or with a
	// unit ("100KB"), to its first MaxResultBytes with a note saying how to
	// get the rest: an agent's context has no room for more. An error
	// message is cut the same way. Default 100KB.
	MaxResultBytes int64 `koanf:"maxResultBytes"`
	// MaxResultHardBytes: a result larger than this (with the squad values
	// the call set) is not sent at all; the call answers RESULT_TOO_LARGE.
	// The front reads no line from an Igor longer than this plus 1 MiB. At
	// most 64MiB (the Igor protocol's line bound). Default 16MiB.
	MaxResultHardBytes int64 `koanf:"maxResultHardBytes"`
}

// Events configures the event bus.
type Events struct {
	// Tasks emits task:started and task:completed for every call, for a
	// dashboard that follows each call; task:queued and task:failed are
	// always emitted, as are swarm:* and igor:*. Off by default: at thousands of calls a second they
	// would crowd out everything else in events_recent. Default false;
	// on while the dashboard is served.
	Tasks bool `koanf:"tasks"`
}

// Workers configures the worker pool and the durable job queue.
type Workers struct {
	// Count is how many jobs barrhawk serve runs at once (its embedded
	// pool); 0 runs none here (jobs wait for another pool). Default 2.
	Count int `koanf:"count"`
	// DB is the queue: an SQLite file, or a postgres:// URL shared by pools
	// on several machines. Default <home>/queue.db.
	DB string `koanf:"db"`
	// WorktreeDir is where jobs' worktrees go (default: the repository's
	// .barrhawk/worktrees).
	WorktreeDir string `koanf:"worktreeDir"`
	// KeepWorktrees leaves each job's worktree (for debugging).
	KeepWorktrees bool `koanf:"keepWorktrees"`
	// LogDir and ArtifactDir keep each job's log and artifacts. Default
	// <home>/jobs/logs and <home>/jobs/artifacts.
	LogDir      string `koanf:"logDir"`
	ArtifactDir string `koanf:"artifactDir"`
	// EnvAllow names variables passed to jobs although their names look
	// secret (KEY, SECRET, TOKEN, PASSWORD, CREDENTIAL).
	EnvAllow []string `koanf:"envAllow"`
	// Require names the tools the jobs need (go, dotnet, npm, ...), checked
	// with git when barrhawk worker start starts, as its --require flags.
	Require []string `koanf:"require"`
	// Mode is how workers run: "process" (separate processes on this
	// machine), the only mode of this build. Default process.
	Mode string `koanf:"mode"`
	// Process supervises the worker processes of barrhawk worker start.
	Process WorkerProcess `koanf:"process"`
	// Worktree holds the seed's names for WorktreeDir and KeepWorktrees.
	Worktree WorkerWorktree `koanf:"worktree"`
}

// WorkerProcess is how barrhawk worker start supervises its workers (the
// keys of Task 027.a).
type WorkerProcess struct {
	// RestartDelayMs is the wait before restarting a worker that exited;
	// it doubles per exit in a row. Default 1000.
	RestartDelayMs int `koanf:"restartDelayMs"`
	// MaxRestartDelayMs caps that wait. Default 60000.
	MaxRestartDelayMs int `koanf:"maxRestartDelayMs"`
	// MaxRestarts is how many restarts in a row a worker gets before it is
	// failed and replaced by a new one. Default 10.
	MaxRestarts int `koanf:"maxRestarts"`
	// KillTimeoutSeconds is the time a worker gets after SIGTERM before
	// SIGKILL. Default 10.
	KillTimeoutSeconds int `koanf:"killTimeoutSeconds"`
	// KeepWorktrees is workers.keepWorktrees under the seed's name; either
	// keeps them.
	KeepWorktrees bool `koanf:"keepWorktrees"`
}

// WorkerWorktree holds the seed's worktree keys.
type WorkerWorktree struct {
	// BaseDir is workers.worktreeDir under the seed's name.
	BaseDir string `koanf:"baseDir"`
	// CleanupOnExit false keeps each job's worktree, as keepWorktrees does.
	// Default true.
	CleanupOnExit bool `koanf:"cleanupOnExit"`
}

// Spawn configures sub-agents.
type Spawn struct {
	// ClaudePath and GeminiPath are the agent CLIs (default: claude and
	// gemini on PATH).
	ClaudePath string `koanf:"claudePath"`
	GeminiPath string `koanf:"geminiPath"`
	// Dir keeps each spawn's status, manifests, streams and patch. Default
	// <home>/spawns.
	Dir string `koanf:"dir"`
	// IdleTimeout stops an agent silent this long. Default 120s.
	IdleTimeout time.Duration `koanf:"idleTimeout"`
	// TotalTimeout stops a run that takes this long. Default 30m.
	TotalTimeout time.Duration `koanf:"totalTimeout"`
	// Recovery is how denials are fixed: moderate (one retry), aggressive
	// (while fixes help) or interactive (asking). Default moderate.
	Recovery string `koanf:"recovery"`
	// GitHubAPI is the REST API for pull requests, when it is not
	// github.api's. Empty: github.api (GITHUB_API_URL, api.github.com).
	GitHubAPI string `koanf:"githubApi"`
	// SecretsDir holds secrets as files named after them (secrets are also
	// found in the environment and the config). Default <home>/secrets.
	SecretsDir string `koanf:"secretsDir"`
}

// Admin configures the Beta HTTP admin API (serve --admin ADDR).
type Admin struct {
	// Token is the bearer token every request must carry (env
	// BARRHAWK_ADMIN_TOKEN). Empty: one is generated for the run and
	// logged.
	Token string `koanf:"token"`
}

// Dashboard configures the web UI and the record it shows.
type Dashboard struct {
	// Addr serves the dashboard on this loopback address, as serve
	// --dashboard does. Default none (off).
	Addr string `koanf:"addr"`
	// Token is what every request must carry (env
	// BARRHAWK_DASHBOARD_TOKEN); one is made for the run when none is
	// set. The URL printed at start carries it.
	Token string `koanf:"token"`
	// Record keeps every call and test result (assertions, audits, the
	// reports the tools read, finished jobs) in DB, whether or not the
	// dashboard is served. Default true.
	Record bool `koanf:"record"`
	// DB is the record: an SQLite file, or a postgres:// URL of a
	// database that servers on several machines and CI share. The
	// tables are made and migrated by the server. Default
	// <home>/record.db.
	DB string `koanf:"db"`
	// Retention is how long calls and runs are kept, applied every
	// minute. Default 720h (30 days); 0: for ever.
	Retention time.Duration `koanf:"retention"`
	// MaxCalls bounds the calls kept (the oldest go first), held within
	// seconds at any rate. Default 200000; 0: no bound.
	MaxCalls int `koanf:"maxCalls"`
	// MaxBytes bounds the record's file, in bytes or with a unit
	// ("256MiB"): past it the oldest calls go first, whatever MaxCalls
	// says. Default 256MiB; 0: no bound.
	MaxBytes int64 `koanf:"maxBytes"`
}

// Intent configures intent analysis (intent_analyze).
type Intent struct {
	// Enabled turns intent_analyze on. Default true.
	Enabled bool `koanf:"enabled"`
	// CacheResults keeps analyses of the same input. Default true.
	CacheResults bool `koanf:"cacheResults"`
	// Learned adds the tools a model learned from labelled requests
	// finds likely and the rules did not give (docs/tool-search.md);
	// false gives the rules' answer alone. Default true.
	Learned bool `koanf:"learned"`
}

// MCP configures the MCP protocol layer of the front, on every transport.
type MCP struct {
	// MaxMessageBytes bounds one incoming JSON-RPC message (a stdio line or
	// an HTTP body), in bytes or with a unit ("16MiB"). A larger one is
	// answered with an error and read past. Default 16MiB.
	MaxMessageBytes int64 `koanf:"maxMessageBytes"`
	// Token, when set, is the bearer token every request to the MCP
	// endpoint over HTTP must carry (env BARRHAWK_MCP_TOKEN). Empty: none
	// is asked for, and any local process can call every tool.
	Token string `koanf:"token"`
	// SessionIdleTimeout ends an HTTP session that sent no request this
	// long, and releases what it holds (its tool bag, subscriptions,
	// squads, the browser sessions it opened); a request on it after is
	// answered 404, so the client initializes again. Default 30m; 0:
	// never.
	SessionIdleTimeout time.Duration `koanf:"sessionIdleTimeout"`
	// MaxSessions bounds the HTTP sessions open at once. At the bound a
	// new initialize ends the session idle longest, or is answered 503
	// with Retry-After when none is idle. Default 1000.
	MaxSessions int `koanf:"maxSessions"`
}

// Log configures logging. Logs go to stderr, never stdout.
type Log struct {
	// Level is debug, info (default), warn or error.
	Level string `koanf:"level"`
	// Format is text (default) or json.
	Format string `koanf:"format"`
	// File, if set, also writes logs to this file, rotated at 10 MB, 3
	// old files kept.
	File string `koanf:"file"`
}

// BuiltinProfiles are the tool list profiles every configuration has
// (package toolbag defines them).
var BuiltinProfiles = []string{"browser", "core", "data", "database", "files", "qa", "text"}

// Strategies are the dispatch strategies this build supports.
var Strategies = []string{"round-robin", "single", "specialized", "swarm", "squad"}

// Default returns the configuration before any file, env or flag.
func Default() Config {
	home, _ := os.UserHomeDir()
	c := Config{
		Igors: Igors{
			MaxWorkers:             runtime.NumCPU(),
			Strategy:               "round-robin",
			MaxTasksPerIgor:        32,
			IdleTimeout:            5 * time.Minute,
			HeartbeatInterval:      5 * time.Second,
			SpawnDelay:             100 * time.Millisecond,
			BackoffMax:             5 * time.Second,
			SpawnTimeout:           10 * time.Second,
			Spare:                  true,
			ShutdownGrace:          3 * time.Second,
			StopGrace:              time.Second,
			MemoryLimit:            512 << 20,
			SquadIdleTimeout:       30 * time.Minute,
			BrowserHeadless:        true,
			BrowserIdleTimeout:     10 * time.Minute,
			BrowserTestIDAttribute: "data-testid",
		},
		Tools: Tools{
			DefaultTimeout: 30 * time.Second, EnableDynamic: true, HotReload: true,
			SnapshotKeep: 20, RecoveryCrashes: 5, RecoveryWindow: time.Minute,
			MaxResultBytes: 100_000, MaxResultHardBytes: 16 << 20, ListProfile: "core",
		},
		MCP:       MCP{MaxMessageBytes: 16 << 20, SessionIdleTimeout: 30 * time.Minute, MaxSessions: 1000},
		Intent:    Intent{Enabled: true, CacheResults: true, Learned: true},
		Log:       Log{Level: "info", Format: "text"},
		Workers:   defaultWorkers(),
		Gateway:   defaultGateway(),
		Spawn:     Spawn{IdleTimeout: 120 * time.Second, TotalTimeout: 30 * time.Minute, Recovery: "moderate"},
		Home:      filepath.Join(home, ".barrhawk"),
		Dashboard: Dashboard{Record: true, Retention: 30 * 24 * time.Hour, MaxCalls: 200_000, MaxBytes: 256 << 20},
	}
	c.fillPaths()
	return c
}

// EnvVars maps each environment variable to the key it sets, in the order
// they apply (later wins). DOCTOR_* are the doctor-spec names.
var EnvVars = []struct{ Name, Key, Doc string }{
	{"DOCTOR_MAX_IGORS", "igors.maxWorkers", "max Igor pool size"},
	{"DOCTOR_IGOR_IDLE_TIMEOUT", "igors.idleTimeout", "stop idle Igors after this (ms or duration)"},
	{"DOCTOR_TOOL_TIMEOUT", "tools.defaultTimeout", "default tool timeout (ms or duration)"},
	{"DOCTOR_LOG_LEVEL", "log.level", "debug, info, warn, error"},
	{"BARRHAWK_MAX_IGORS", "igors.maxWorkers", "as DOCTOR_MAX_IGORS"},
	{"BARRHAWK_STRATEGY", "igors.strategy", "round-robin, single, specialized, swarm or squad"},
	{"BARRHAWK_TOOL_TIMEOUT", "tools.defaultTimeout", "as DOCTOR_TOOL_TIMEOUT"},
	{"BARRHAWK_LOG_LEVEL", "log.level", "as DOCTOR_LOG_LEVEL"},
	{"BARRHAWK_LOG_FORMAT", "log.format", "text or json"},
	{"BARRHAWK_LOG_FILE", "log.file", "also log to this file"},
	{"BARRHAWK_HOME", "home", "state directory (default ~/.barrhawk)"},
	{"DOCTOR_ENABLE_HOT_RELOAD", "tools.hotReload", "watch the dynamic tools directory"},
	{"DOCTOR_ENABLE_INTENT_ANALYSIS", "intent.enabled", "intent analysis (intent_analyze)"},
	{"BARRHAWK_DYNAMIC_DIR", "tools.dynamicDir", "dynamic tools directory"},
	{"BARRHAWK_IGOR_MEMORY_LIMIT", "igors.memoryLimit", "per-Igor memory bound (bytes or 512MiB)"},
	{"BARRHAWK_ADMIN_TOKEN", "admin.token", "bearer token of the admin API"},
	{"BARRHAWK_MCP_TOKEN", "mcp.token", "bearer token of the MCP endpoint over HTTP"},
	{"BARRHAWK_DASHBOARD_TOKEN", "dashboard.token", "token of the dashboard (serve --dashboard)"},
}

// Load builds the configuration. path names the config file (from --config
// or BARRHAWK_CONFIG); empty means search for barrhawk.yaml. flags holds the
// keys set on the command line.
func Load(path string, flags map[string]any) (Config, error) {
	k := koanf.New(".")
	def := Default()
	cfg := def
	if path == "" {
		path = os.Getenv("BARRHAWK_CONFIG")
	}
	if path == "" {
		path = find(def.Home)
	} else if _, err := os.Stat(path); err != nil {
		return cfg, fmt.Errorf("config file %s: %w", path, err)
	}
	if path != "" {
		if err := k.Load(file.Provider(path), yaml.Parser()); err != nil {
			return cfg, fmt.Errorf("config file %s: %w", path, err)
		}
	}
	env := map[string]any{}
	for _, e := range EnvVars {
		if v, ok := os.LookupEnv(e.Name); ok && v != "" {
			env[e.Key] = v
		}
	}
	if err := k.Load(confmap.Provider(env, "."), nil); err != nil {
		return cfg, fmt.Errorf("environment: %w", err)
	}
	if err := k.Load(confmap.Provider(flags, "."), nil); err != nil {
		return cfg, fmt.Errorf("flags: %w", err)
	}
	err := k.UnmarshalWithConf("", &cfg, koanf.UnmarshalConf{DecoderConfig: &mapstructure.DecoderConfig{
		DecodeHook:       mapstructure.ComposeDecodeHookFunc(durationHook, sizeHook, mapstructure.StringToSliceHookFunc(",")),
		Result:           &cfg,
		WeaklyTypedInput: true,
		ErrorUnused:      true,
		TagName:          "koanf",
	}})
	if err != nil {
		return cfg, fmt.Errorf("config%s: %w", where(path), err)
	}
	cfg.File = path
	if home, ok := k.Get("home").(string); ok && home != def.Home {
		// State paths not set explicitly follow a changed home.
		for key, p := range map[string]*string{"tools.dynamicDir": &cfg.Tools.DynamicDir, "tools.snapshotsDir": &cfg.Tools.SnapshotsDir, "tools.fsRoot": &cfg.Tools.FSRoot, "tools.screenshotDir": &cfg.Tools.ScreenshotDir,
			"workers.db": &cfg.Workers.DB, "workers.logDir": &cfg.Workers.LogDir, "workers.artifactDir": &cfg.Workers.ArtifactDir,
			"spawn.dir": &cfg.Spawn.Dir, "spawn.secretsDir": &cfg.Spawn.SecretsDir, "gateway.stateFile": &cfg.Gateway.StateFile, "dashboard.db": &cfg.Dashboard.DB} {
			if !k.Exists(key) {
				*p = ""
			}
		}
	}
	if !k.Exists("gateway.callTimeout") {
		cfg.Gateway.CallTimeout = 0 // follows tools.defaultTimeout
	}
	cfg.fillPaths()
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("config%s: %w", where(path), err)
	}
	return cfg, nil
}

// defaultWorkers is the workers section before any file, env or flag.
func defaultWorkers() Workers {
	return Workers{Count: 2, Mode: "process",
		Process:  WorkerProcess{RestartDelayMs: 1000, MaxRestartDelayMs: 60_000, MaxRestarts: 10, KillTimeoutSeconds: 10},
		Worktree: WorkerWorktree{CleanupOnExit: true}}
}

// validateWorkers checks the workers section.
func (c *Config) validateWorkers(bad func(key, format string, a ...any)) {
	w := c.Workers
	if w.Count < 0 || w.Count > 1024 {
		bad("workers.count", "%d is out of range; use 0 (no embedded pool) to 1024", w.Count)
	}
	if w.Mode != "process" {
		bad("workers.mode", "%q is not a mode of this build; use process (workers as local processes)", w.Mode)
	}
	p := w.Process
	if p.RestartDelayMs < 1 {
		bad("workers.process.restartDelayMs", "%d must be at least 1 (milliseconds)", p.RestartDelayMs)
	}
	if p.MaxRestartDelayMs < p.RestartDelayMs {
		bad("workers.process.maxRestartDelayMs", "%d must be at least workers.process.restartDelayMs (%d)", p.MaxRestartDelayMs, p.RestartDelayMs)
	}
	if p.MaxRestarts < 1 {
		bad("workers.process.maxRestarts", "%d must be at least 1", p.MaxRestarts)
	}
	if p.KillTimeoutSeconds < 1 || p.KillTimeoutSeconds > 600 {
		bad("workers.process.killTimeoutSeconds", "%d is out of range; use 1 to 600", p.KillTimeoutSeconds)
	}
	if b := w.Worktree.BaseDir; b != "" && b != w.WorktreeDir {
		bad("workers.worktree.baseDir", "%q disagrees with workers.worktreeDir %q; set one of them", b, w.WorktreeDir)
	}
}

func where(path string) string {
	if path == "" {
		return ""
	}
	return " (" + path + ")"
}

func find(home string) string {
	for _, p := range []string{FileName, filepath.Join(home, FileName)} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// fillPaths derives the state paths left empty from Home.
func (c *Config) fillPaths() {
	if c.Tools.DynamicDir == "" {
		c.Tools.DynamicDir = filepath.Join(c.Home, "dynamic-tools")
	}
	if c.Tools.SnapshotsDir == "" {
		c.Tools.SnapshotsDir = filepath.Join(c.Home, "snapshots")
	}
	if c.Workers.DB == "" {
		c.Workers.DB = filepath.Join(c.Home, "queue.db")
	}
	// The seed's names for two workers keys.
	if c.Workers.WorktreeDir == "" {
		c.Workers.WorktreeDir = c.Workers.Worktree.BaseDir
	}
	if c.Workers.Process.KeepWorktrees || !c.Workers.Worktree.CleanupOnExit {
		c.Workers.KeepWorktrees = true
	}
	if c.Workers.LogDir == "" {
		c.Workers.LogDir = filepath.Join(c.Home, "jobs", "logs")
	}
	if c.Workers.ArtifactDir == "" {
		c.Workers.ArtifactDir = filepath.Join(c.Home, "jobs", "artifacts")
	}
	if c.Spawn.Dir == "" {
		c.Spawn.Dir = filepath.Join(c.Home, "spawns")
	}
	c.fillGateway()
	if c.Spawn.SecretsDir == "" {
		c.Spawn.SecretsDir = filepath.Join(c.Home, "secrets")
	}
	if c.Tools.ScreenshotDir == "" {
		c.Tools.ScreenshotDir = filepath.Join(c.Home, "screenshots")
	}
	if c.Tools.FSRoot == "" {
		c.Tools.FSRoot = filepath.Join(c.Home, "tool-files")
	}
	if c.Dashboard.DB == "" {
		c.Dashboard.DB = filepath.Join(c.Home, "record.db")
	}
}

var durationType = reflect.TypeOf(time.Duration(0))

// sizeHook reads a byte size (igors.memoryLimit, mcp.maxMessageBytes,
// tools.maxResult*): an integer of bytes or
// a number with a unit (KiB, MiB, GiB, KB, MB, GB).
func sizeHook(from, to reflect.Type, data any) (any, error) {
	s, ok := data.(string)
	if !ok || to.Kind() != reflect.Int64 || to == durationType {
		return data, nil
	}
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}} {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err == nil && f >= 0 {
				return int64(f * float64(u.mult)), nil
			}
		}
	}
	return nil, fmt.Errorf("%q is not a size: write bytes (536870912) or a number with KiB, MiB or GiB (512MiB)", s)
}

// durationHook reads a duration from a Go duration string or a number of
// milliseconds.
func durationHook(from, to reflect.Type, data any) (any, error) {
	if to != durationType {
		return data, nil
	}
	switch v := data.(type) {
	case int:
		return time.Duration(v) * time.Millisecond, nil
	case int64:
		return time.Duration(v) * time.Millisecond, nil
	case uint64:
		return time.Duration(v) * time.Millisecond, nil
	case float64:
		return time.Duration(v * float64(time.Millisecond)), nil
	case time.Duration:
		return v, nil
	case string:
		s := strings.TrimSpace(v)
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Duration(n) * time.Millisecond, nil
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a duration: write milliseconds (30000) or a Go duration (30s, 5m)", v)
		}
		return d, nil
	}
	return data, nil
}

// Validate reports the first setting that is out of range, naming it and
// what would be right.
// attrName is an HTML attribute name a selector engine can be named by.
var attrName = regexp.MustCompile(`^[a-zA-Z_][-a-zA-Z0-9_.]*$`)

func (c *Config) Validate() error {
	var errs []error
	bad := func(key string, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, a...)))
	}
	if c.Igors.MaxWorkers < 1 || c.Igors.MaxWorkers > 1024 {
		bad("igors.maxWorkers", "%d is out of range; use 1 to 1024", c.Igors.MaxWorkers)
	}
	if !slices.Contains(Strategies, c.Igors.Strategy) {
		bad("igors.strategy", "%q is not a strategy; use one of %s", c.Igors.Strategy, strings.Join(Strategies, ", "))
	}
	if c.Igors.MaxTasksPerIgor < 1 {
		bad("igors.maxTasksPerIgor", "%d must be at least 1", c.Igors.MaxTasksPerIgor)
	}
	for key, d := range map[string]time.Duration{
		"igors.idleTimeout": c.Igors.IdleTimeout, "igors.heartbeatInterval": c.Igors.HeartbeatInterval,
		"igors.spawnDelay": c.Igors.SpawnDelay, "igors.backoffMax": c.Igors.BackoffMax,
		"igors.spawnTimeout": c.Igors.SpawnTimeout, "igors.shutdownGrace": c.Igors.ShutdownGrace,
		"igors.stopGrace": c.Igors.StopGrace, "igors.squadIdleTimeout": c.Igors.SquadIdleTimeout, "tools.defaultTimeout": c.Tools.DefaultTimeout,
		"tools.recoveryWindow": c.Tools.RecoveryWindow,
	} {
		if d <= 0 {
			bad(key, "%v must be positive", d)
		}
	}
	if !attrName.MatchString(c.Igors.BrowserTestIDAttribute) {
		bad("igors.browserTestIdAttribute", "%q is not an HTML attribute name; use one such as data-testid or data-pw", c.Igors.BrowserTestIDAttribute)
	}
	if c.Igors.MemoryLimit != 0 && c.Igors.MemoryLimit < 64<<20 {
		bad("igors.memoryLimit", "%d bytes is too small for an Igor; use at least 64MiB, or 0 for no bound", c.Igors.MemoryLimit)
	}
	if c.MCP.MaxMessageBytes < 64<<10 || c.MCP.MaxMessageBytes > 1<<30 {
		bad("mcp.maxMessageBytes", "%d bytes is out of range; use 64KiB to 1GiB", c.MCP.MaxMessageBytes)
	}
	if c.Tools.MaxResultBytes < 1000 {
		bad("tools.maxResultBytes", "%d bytes is too small to show anything; use at least 1000", c.Tools.MaxResultBytes)
	}
	if c.Tools.MaxResultHardBytes < c.Tools.MaxResultBytes || c.Tools.MaxResultHardBytes > 64<<20 {
		bad("tools.maxResultHardBytes", "%d bytes is out of range; use tools.maxResultBytes (%d) to 64MiB", c.Tools.MaxResultHardBytes, c.Tools.MaxResultBytes)
	}
	if p := c.Tools.ListProfile; p != "all" && p != "" {
		if _, ok := c.Tools.Profiles[p]; !ok && !slices.Contains(BuiltinProfiles, p) {
			bad("tools.listProfile", "%q is not a profile; use all, one of %s, or one defined in tools.profiles", p, strings.Join(BuiltinProfiles, ", "))
		}
	}
	if c.Tools.SnapshotKeep < 1 {
		bad("tools.snapshotKeep", "%d must be at least 1", c.Tools.SnapshotKeep)
	}
	if c.Tools.RecoveryCrashes < 1 {
		bad("tools.recoveryCrashes", "%d must be at least 1", c.Tools.RecoveryCrashes)
	}
	c.validateWorkers(bad)
	c.validateGateway(bad)
	c.validateDocker(bad)
	c.validateGitHub(bad)
	if c.Dashboard.Retention < 0 {
		bad("dashboard.retention", "%v must not be negative (0 keeps calls and runs for ever)", c.Dashboard.Retention)
	}
	if c.Dashboard.MaxCalls < 0 {
		bad("dashboard.maxCalls", "%d must not be negative (0 keeps every call)", c.Dashboard.MaxCalls)
	}
	if db := c.Dashboard.DB; strings.Contains(db, "://") && !strings.HasPrefix(db, "postgres://") && !strings.HasPrefix(db, "postgresql://") {
		// The value is not echoed: a URL may hold a password.
		bad("dashboard.db", "a URL of scheme %q is not a database the record can use; give an SQLite file path or postgres://user:password@host:5432/dbname", db[:strings.Index(db, "://")])
	}
	if c.Dashboard.MaxBytes != 0 && c.Dashboard.MaxBytes < 1<<20 {
		bad("dashboard.maxBytes", "%d bytes is too small; use at least 1MiB, or 0 for no bound", c.Dashboard.MaxBytes)
	}
	if c.MCP.SessionIdleTimeout < 0 {
		bad("mcp.sessionIdleTimeout", "%v must not be negative (0 never ends an idle session)", c.MCP.SessionIdleTimeout)
	}
	if c.MCP.MaxSessions < 1 {
		bad("mcp.maxSessions", "%d must be at least 1", c.MCP.MaxSessions)
	}
	if !slices.Contains([]string{"debug", "info", "warn", "error"}, strings.ToLower(c.Log.Level)) {
		bad("log.level", "%q is not a level; use debug, info, warn or error", c.Log.Level)
	}
	if !slices.Contains([]string{"text", "json"}, c.Log.Format) {
		bad("log.format", "%q is not a format; use text or json", c.Log.Format)
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}
