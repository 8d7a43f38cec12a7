// Package wire holds the Doctor↔Igor messages of igor-spec.md and their
// codec: newline-delimited JSON on the Igor's stdin and stdout.
//
// Doctor → Igor: Init, Task, Ping, Shutdown.
// Igor → Doctor: Ready, TaskResult, Pong, ShutdownAck, RequestRestart, Fatal.
//
// A Task and a TaskResult carry no "type" field (as in the spec); every other
// message does. Decoding reads any of them into an Envelope; Kind tells which.
package wire

import (
	"encoding/json"
	"strings"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// Message types.
const (
	TypeInit           = "init"
	TypeReady          = "ready"
	TypePing           = "ping"
	TypePong           = "pong"
	TypeShutdown       = "shutdown"
	TypeShutdownAck    = "shutdown_ack"
	TypeRequestRestart = "request_restart"
	// TypeFatal is ours: an Igor that cannot start (a malformed tool bag, say)
	// says why before it exits, so the front can report more than an exit code.
	TypeFatal = "fatal"
	// TypeToolsUpdate is ours: the Doctor sends the whole set of dynamic
	// tools after a change; the Igor loads it without restarting.
	TypeToolsUpdate = "tools_update"
	// TypeToolsLoaded answers tools_update (and init's dynamic tools):
	// each tool's metadata, or why it failed to load.
	TypeToolsLoaded = "tools_loaded"
	// TypeCancel asks the Igor to cancel a running task: its caller went
	// away (the client's notifications/cancelled).
	TypeCancel = "cancel"
)

// MemoryLimitExit begins the line an Igor writes to its stderr just before
// it exits for going over its memory limit (igors.memoryLimit); see
// MemoryLimitLine. The front takes it, like the Go runtime's own "fatal
// error: out of memory", as the sign of a death by memory: the calls the
// Igor was running answer MEMORY_LIMIT and are not retried. (Stderr,
// because an answer on stdout may still be in a write buffer when the
// process ends.)
const MemoryLimitExit = "barrhawk igor: out of memory:"

// MemoryLimitLine is the stderr line of an Igor exiting for going over its
// memory limit while running the tasks ids: MemoryLimitExit, "tasks=" and
// the ids separated by commas, then why. A task sent after that moment is
// not to blame, and may be retried elsewhere.
func MemoryLimitLine(ids []string, why string) string {
	return MemoryLimitExit + " tasks=" + strings.Join(ids, ",") + " " + why
}

// ParseMemoryLimitLine returns the task ids a MemoryLimitLine names; ok is
// false for any other line.
func ParseMemoryLimitLine(line string) (ids []string, ok bool) {
	rest, ok := strings.CutPrefix(line, MemoryLimitExit+" tasks=")
	if !ok {
		return nil, false
	}
	list, _, _ := strings.Cut(rest, " ")
	ids = []string{}
	for id := range strings.SplitSeq(list, ",") {
		if id != "" {
			ids = append(ids, id)
		}
	}
	return ids, true
}

// Task statuses.
const (
	StatusSuccess = "success"
	StatusError   = "error"
	StatusTimeout = "timeout"
	// StatusNotRun is ours: the Igor did not start the task because it is
	// leaving (signalled, or shutting down). Nothing ran, so the front
	// sends it to another Igor whatever the tool.
	StatusNotRun = "not_run"
)

// Init is the first message an Igor receives.
type Init struct {
	Type    string   `json:"type"`
	ID      string   `json:"id"`
	ToolBag []string `json:"toolBag,omitempty"`
	// DynamicBag names the dynamic tools it may run (names or globs; ours);
	// absent, its tool bag decides. A lane whose dynamic tools the front
	// routes by domain sends ["*"] (or igors.toolBag).
	DynamicBag []string       `json:"dynamicBag,omitempty"`
	Config     InitConfig     `json:"config"`
	Context    map[string]any `json:"context,omitempty"`
	// DynamicTools are the dynamic tools to load at start (ours).
	DynamicTools []DynamicTool `json:"dynamicTools,omitempty"`
}

// DynamicTool is one compiled dynamic tool: JavaScript (CommonJS with an
// inline source map) compiled by the front from File.
type DynamicTool struct {
	File string `json:"file"`
	JS   string `json:"js"`
	Hash string `json:"hash"`
}

// ToolsUpdate replaces the Igor's set of dynamic tools. With Describe set,
// the Igor only loads them to report their metadata, and keeps its set.
type ToolsUpdate struct {
	Type         string        `json:"type"`
	ID           string        `json:"id,omitempty"`
	DynamicTools []DynamicTool `json:"dynamicTools"`
	Describe     bool          `json:"describe,omitempty"`
}

// LoadedTool is one dynamic tool as an Igor loaded it.
type LoadedTool struct {
	File        string          `json:"file"`
	Name        string          `json:"name,omitempty"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"`
	Permissions []string        `json:"permissions,omitempty"`
	// Phrases are the words people use when they want the tool.
	Phrases []string `json:"phrases,omitempty"`
	// Timeout is the tool's own timeout in milliseconds (0: the default).
	Timeout int64 `json:"timeout,omitempty"`
	// Error says why the tool did not load; the other fields are then empty.
	Error string `json:"error,omitempty"`
}

// ToolsLoaded answers ToolsUpdate; ID matches the update's.
type ToolsLoaded struct {
	Type   string       `json:"type"`
	ID     string       `json:"id,omitempty"`
	Loaded []LoadedTool `json:"loaded"`
}

// InitConfig is the Igor's configuration, set by the Doctor at spawn time.
type InitConfig struct {
	// Timeout is the default task timeout in milliseconds.
	Timeout int64 `json:"timeout"`
	// StopGrace is how long, in milliseconds, a timed-out tool may take to
	// return before the Igor asks to be replaced.
	StopGrace       int64  `json:"stopGrace,omitempty"`
	BrowserHeadless bool   `json:"browserHeadless"`
	ScreenshotDir   string `json:"screenshotDir,omitempty"`
	// RecordDB is the record's SQLite file; empty when dashboard.record is
	// off.
	RecordDB string `json:"recordDb,omitempty"`
	// BrowserIdleTimeout, in milliseconds, closes a browser unused this
	// long (0: never).
	BrowserIdleTimeout int64 `json:"browserIdleTimeout,omitempty"`
	// BrowserTestIDAttribute is the test id attribute of selectors
	// (data-testid when empty).
	BrowserTestIDAttribute string `json:"browserTestIdAttribute,omitempty"`
	// MemoryLimit bounds the Igor's memory in bytes (0: no bound).
	MemoryLimit int64 `json:"memoryLimit,omitempty"`
	// FSRoot is the directory a dynamic tool with the filesystem permission
	// is confined to.
	FSRoot string `json:"fsRoot,omitempty"`
	// MaxResultBytes and MaxResultHardBytes bound each result
	// (tools.maxResultBytes, tools.maxResultHardBytes; tool.ResultLimits).
	MaxResultBytes     int64 `json:"maxResultBytes,omitempty"`
	MaxResultHardBytes int64 `json:"maxResultHardBytes,omitempty"`
	// OwnAddrs are the front's listen addresses (MCP over HTTP, admin API),
	// which ctx.fetch refuses.
	OwnAddrs []string `json:"ownAddrs,omitempty"`
	// Docker is the docker.* configuration.
	Docker *DockerConfig `json:"docker,omitempty"`
	// GitHubAPI is the github.api setting (the GitHub tools' REST API).
	GitHubAPI string `json:"githubApi,omitempty"`
}

// DockerConfig is the docker.* configuration an Igor's Docker tools use.
type DockerConfig struct {
	Host            string   `json:"host,omitempty"`
	AllowPrivileged bool     `json:"allowPrivileged,omitempty"`
	AllowedMounts   []string `json:"allowedMounts,omitempty"`
	Compose         string   `json:"compose,omitempty"`
}

// Ready answers Init.
type Ready struct {
	Type        string   `json:"type"`
	ID          string   `json:"id"`
	ToolsLoaded int      `json:"toolsLoaded"`
	PID         int      `json:"pid"`
	MemoryUsage int64    `json:"memoryUsage"`
	Tools       []string `json:"tools,omitempty"`
}

// Task asks an Igor to run one tool.
type Task struct {
	ID      string            `json:"id"`
	Tool    string            `json:"tool"`
	Args    json.RawMessage   `json:"args,omitempty"`
	Timeout int64             `json:"timeout,omitempty"`
	Context *tool.ExecContext `json:"context,omitempty"`
	// Roots are the directories a filesystem tool may touch (ours): set by
	// the Doctor for tools of CategoryFilesystem and those with UsesRoots; see tool.WithRoots.
	Roots []string `json:"roots,omitempty"`
}

// TaskResult answers a Task; ID matches the task's.
type TaskResult struct {
	ID     string          `json:"id"`
	Status string          `json:"status"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *tool.Error     `json:"error,omitempty"`
	// Duration is the execution time in milliseconds.
	Duration float64 `json:"duration"`
	// Resources is what the Igor holds as the task ends, sent when a
	// browser tool changed how many tabs it has (pongs say it otherwise).
	Resources *ResourceUsage `json:"resources,omitempty"`
	// Shared are the squad values the task set, to store in the front.
	Shared map[string]json.RawMessage `json:"shared,omitempty"`
}

// Ping is the Doctor's heartbeat.
type Ping struct {
	Type string `json:"type"`
}

// Pong answers Ping.
type Pong struct {
	Type          string        `json:"type"`
	Status        string        `json:"status"`
	ResourceUsage ResourceUsage `json:"resourceUsage"`
}

// ResourceUsage is what an Igor holds.
type ResourceUsage struct {
	Memory       int64 `json:"memory"`
	BrowserPages int   `json:"browserPages"`
	// BrowserMemory is the memory (PSS) of the Igor's browser processes
	// (the browser, its renderers and helpers), in bytes.
	BrowserMemory int64 `json:"browserMemory,omitempty"`
	DBConnections int   `json:"dbConnections"`
	// Watchers are the fs_watch watchers the Igor holds.
	Watchers int `json:"watchers,omitempty"`
	// GitHubConnections are the gh_connect connections the Igor holds.
	GitHubConnections int `json:"githubConnections,omitempty"`
	TasksInFlight     int `json:"tasksInFlight"`
	Goroutines        int `json:"goroutines,omitempty"`
}

// Shutdown asks an Igor to clean up and exit.
type Shutdown struct {
	Type     string `json:"type"`
	Graceful bool   `json:"graceful"`
}

// ShutdownAck answers Shutdown, naming the kinds of resources cleaned up.
type ShutdownAck struct {
	Type      string   `json:"type"`
	CleanedUp []string `json:"cleanedUp"`
}

// RequestRestart asks the Doctor to replace this Igor.
type RequestRestart struct {
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

// Fatal says why an Igor is about to exit.
type Fatal struct {
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

// Kind is what an Envelope holds.
type Kind int

// The kinds of message.
const (
	KindUnknown Kind = iota
	KindInit
	KindReady
	KindTask
	KindResult
	KindPing
	KindPong
	KindShutdown
	KindShutdownAck
	KindRequestRestart
	KindFatal
	KindToolsUpdate
	KindToolsLoaded
	KindCancel
)

// Cancel asks the Igor to cancel the running task ID; the task's answer
// is then not awaited.
type Cancel struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// Envelope is any message, decoded. Only the fields of its kind are set.
type Envelope struct {
	Type string `json:"type,omitempty"`
	ID   string `json:"id,omitempty"`

	ToolBag    []string        `json:"toolBag,omitempty"`
	DynamicBag []string        `json:"dynamicBag,omitempty"`
	Config     *InitConfig     `json:"config,omitempty"`
	Context    json.RawMessage `json:"context,omitempty"`

	ToolsLoaded int      `json:"toolsLoaded,omitempty"`
	PID         int      `json:"pid,omitempty"`
	MemoryUsage int64    `json:"memoryUsage,omitempty"`
	Tools       []string `json:"tools,omitempty"`

	Tool    string          `json:"tool,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	Timeout int64           `json:"timeout,omitempty"`
	Roots   []string        `json:"roots,omitempty"`

	Status    string                     `json:"status,omitempty"`
	Result    json.RawMessage            `json:"result,omitempty"`
	Error     *tool.Error                `json:"error,omitempty"`
	Duration  float64                    `json:"duration,omitempty"`
	Resources *ResourceUsage             `json:"resources,omitempty"`
	Shared    map[string]json.RawMessage `json:"shared,omitempty"`

	DynamicTools []DynamicTool `json:"dynamicTools,omitempty"`
	Describe     bool          `json:"describe,omitempty"`
	Loaded       []LoadedTool  `json:"loaded,omitempty"`

	ResourceUsage *ResourceUsage `json:"resourceUsage,omitempty"`
	Graceful      bool           `json:"graceful,omitempty"`
	CleanedUp     []string       `json:"cleanedUp,omitempty"`
	Reason        string         `json:"reason,omitempty"`
}

// Kind tells which message the envelope holds.
func (e *Envelope) Kind() Kind {
	switch e.Type {
	case "":
		switch {
		case e.Tool != "":
			return KindTask
		case e.Status != "":
			return KindResult
		}
		return KindUnknown
	case TypeInit:
		return KindInit
	case TypeReady:
		return KindReady
	case TypePing:
		return KindPing
	case TypePong:
		return KindPong
	case TypeShutdown:
		return KindShutdown
	case TypeShutdownAck:
		return KindShutdownAck
	case TypeRequestRestart:
		return KindRequestRestart
	case TypeFatal:
		return KindFatal
	case TypeToolsUpdate:
		return KindToolsUpdate
	case TypeToolsLoaded:
		return KindToolsLoaded
	case TypeCancel:
		return KindCancel
	}
	return KindUnknown
}

// ExecContext decodes the task's shared context, if any.
func (e *Envelope) ExecContext() (*tool.ExecContext, error) {
	if len(e.Context) == 0 || string(e.Context) == "null" {
		return nil, nil
	}
	var c tool.ExecContext
	if err := json.Unmarshal(e.Context, &c); err != nil {
		return nil, err
	}
	return &c, nil
}
