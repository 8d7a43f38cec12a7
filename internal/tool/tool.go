// Package tool defines what a BarrHawk tool is: one definition (name,
// description, input schema, category, requiresWorker, timeout, retries) and
// one handler. The same definition feeds tools/list, argument validation, the
// docs table and the tests; see Registry.
package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// Category is the domain of a tool (doctor-spec.md, ToolCategory).
type Category string

// The tool categories.
const (
	CategoryBrowser  Category = "browser"
	CategoryDatabase Category = "database"
	CategoryGitHub   Category = "github"
	CategoryDocker   Category = "docker"
	// CategoryGateway holds the tools of other MCP servers hosted behind
	// the front (package gateway), named <server>__<tool>.
	CategoryGateway       Category = "gateway"
	CategoryFilesystem    Category = "filesystem"
	CategoryOrchestration Category = "orchestration"
	CategoryMeta          Category = "meta"
	CategoryUtility       Category = "utility"
	// CategoryTest holds fault-injection tools that exist only when
	// BARRHAWK_TEST_TOOLS=1; they are never listed otherwise.
	CategoryTest Category = "test"
)

// Def is the definition of a tool.
type Def struct {
	// Name matches NamePattern and is unique across the registry.
	Name string
	// Description tells an agent what the tool does and returns.
	Description string
	// Phrases are the words people use when they want this tool and that
	// its name and description do not say: for docker_ps "containers
	// running", "what is up", "list containers". Tool search and intent
	// analysis weigh them with the name (package search). Set them with
	// WithPhrases where the tool is defined.
	Phrases []string
	// Group is the heading the tool is listed under in the docs, such as
	// "Assertions" or "Management".
	Group string
	// Category is the tool's domain.
	Category Category
	// Input is the JSON Schema of the arguments; always of type object.
	Input *jsonschema.Schema
	// RawInput, when set, is the input schema as listed, exactly as another
	// MCP server gave it (a gateway tool's); Input is then what it parsed
	// to, used to validate.
	RawInput json.RawMessage
	// RequiresWorker is true when the handler runs in an Igor. Only the
	// front's own management tools set it false.
	RequiresWorker bool
	// UsesRoots says the handler reads host paths: each call is sent the
	// allowed roots (tool.RootsFrom), as every filesystem tool is.
	UsesRoots bool
	// Timeout bounds one call; 0 means the configured default
	// (tools.defaultTimeout, DOCTOR_TOOL_TIMEOUT).
	Timeout time.Duration
	// Quick says the handler answers from its arguments alone, without I/O
	// or waiting, in time linear in their size. An Igor runs a quick call
	// with small arguments on the goroutine that reads its tasks, without
	// a goroutine or timers of its own, which cost more than the call.
	Quick bool
	// Retries is how many times a call is sent to another Igor when the Igor
	// running it dies. 0 means the default, 1; -1 means never (for tools whose
	// side effects must not happen twice).
	Retries int
}

// WithPhrases returns d with phrases added to its Phrases.
func (d Def) WithPhrases(phrases ...string) Def {
	d.Phrases = append(d.Phrases[:len(d.Phrases):len(d.Phrases)], phrases...)
	return d
}

// MaxRetries returns the effective number of retries after a worker death.
func (d *Def) MaxRetries() int {
	switch {
	case d.Retries < 0:
		return 0
	case d.Retries == 0:
		return 1
	}
	return d.Retries
}

// NamePattern is what every tool name must match, but a gateway tool's.
var NamePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// GatewayNamePattern is what a gateway tool's name matches: what the
// strictest mainstream clients accept.
var GatewayNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// InputJSON is the input schema as tools/list shows it.
func (d *Def) InputJSON() (json.RawMessage, error) {
	if d.RawInput != nil {
		return d.RawInput, nil
	}
	return json.Marshal(d.Input)
}

// Handler runs one call. It returns a JSON-marshalable result, or an error;
// an *Error keeps its code, any other error becomes TOOL_ERROR. A handler
// must return when ctx is done.
type Handler func(ctx context.Context, call *Call) (any, error)

// Tool is a definition and its handler.
type Tool struct {
	Def
	Run Handler
}

// Call is what a handler receives besides its context.
type Call struct {
	// Args are the call's arguments, already validated against Def.Input.
	Args json.RawMessage
	// Resources are the long-lived resources of the process running the
	// tool (an Igor); nil in the front.
	Resources *Resources
	// Context is the shared execution context of a squad, if any.
	Context *ExecContext
	// Log is the logger of the process running the tool (stderr).
	Log *slog.Logger
}

// ExecContext is the shared context a squad passes with a task
// (igor-spec.md, ExecutionContext).
type ExecContext struct {
	SquadID        string         `json:"squadId,omitempty"`
	SharedVars     map[string]any `json:"sharedVars,omitempty"`
	BrowserContext string         `json:"browserContext,omitempty"`
	DBConnection   string         `json:"dbConnection,omitempty"`
	// Updates are the shared values the task set (a dynamic tool's
	// ctx.squad.set), carried back to the front with its result.
	Updates map[string]json.RawMessage `json:"-"`
}

// Progress reports how far a long call is: done of total (0: unknown),
// with a message. The front sends it to a client that asked, as
// notifications/progress.
type Progress func(done, total float64, message string)

type progressKey struct{}

// WithProgress returns ctx carrying how to report progress.
func WithProgress(ctx context.Context, p Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// ProgressFrom returns how to report progress: a no-op when the caller
// asked for none.
func ProgressFrom(ctx context.Context) Progress {
	if p, ok := ProgressAsked(ctx); ok {
		return p
	}
	return func(float64, float64, string) {}
}

// ProgressAsked returns how to report progress and true when the caller
// asked for it; nil and false otherwise (no progress need be gathered).
func ProgressAsked(ctx context.Context) (Progress, bool) {
	p, ok := ctx.Value(progressKey{}).(Progress)
	return p, ok && p != nil
}

type execContextKey struct{}

// WithExecContext returns ctx carrying the squad context a call runs
// with; the pool sends it with the task and fills in its Updates.
func WithExecContext(ctx context.Context, ec *ExecContext) context.Context {
	return context.WithValue(ctx, execContextKey{}, ec)
}

// ExecContextFrom returns the squad context ctx carries, or nil.
func ExecContextFrom(ctx context.Context) *ExecContext {
	ec, _ := ctx.Value(execContextKey{}).(*ExecContext)
	return ec
}

// Bind decodes the arguments into v. A decoding failure is an INVALID_ARGS
// error naming the field when it can.
func (c *Call) Bind(v any) error {
	if len(c.Args) == 0 || string(c.Args) == "null" {
		return nil
	}
	if err := json.Unmarshal(c.Args, v); err != nil {
		if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
			return Errorf(CodeInvalidArgs, "argument %q: expected %s, got JSON %s", te.Field, te.Type, te.Value)
		}
		return Errorf(CodeInvalidArgs, "arguments: %v", err)
	}
	return nil
}

// Typed adapts a function taking decoded arguments of type In to a Handler,
// the way http.HandlerFunc adapts a function to an http.Handler.
func Typed[In any](f func(ctx context.Context, in In, call *Call) (any, error)) Handler {
	return func(ctx context.Context, call *Call) (any, error) {
		var in In
		if err := call.Bind(&in); err != nil {
			return nil, err
		}
		return f(ctx, in, call)
	}
}

// Validate reports what is wrong with a definition, or nil.
func (d *Def) Validate() error {
	if d.RawInput != nil { // another server's tool, passed through as it is
		if !GatewayNamePattern.MatchString(d.Name) {
			return fmt.Errorf("gateway tool name %q must match %s", d.Name, GatewayNamePattern)
		}
		if d.Input == nil || d.Input.Type != "object" {
			return fmt.Errorf("tool %s: input schema must be of type object", d.Name)
		}
		return nil
	}
	switch {
	case !NamePattern.MatchString(d.Name):
		return fmt.Errorf("tool name %q must match %s", d.Name, NamePattern)
	case d.Description == "":
		return fmt.Errorf("tool %s: description is empty", d.Name)
	case d.Group == "":
		return fmt.Errorf("tool %s: group is empty", d.Name)
	case d.Category == "":
		return fmt.Errorf("tool %s: category is empty", d.Name)
	case d.Input == nil || d.Input.Type != "object":
		return fmt.Errorf("tool %s: input schema must be of type object", d.Name)
	}
	for name, p := range d.Input.Properties {
		if p.Description == "" {
			return fmt.Errorf("tool %s: argument %q has no description", d.Name, name)
		}
	}
	return nil
}

// Ask puts a yes-or-no question to the user (MCP elicitation) and reports
// the answer.
type Ask func(ctx context.Context, question string) (bool, error)

type askKey struct{}

// WithAsk gives the calls under ctx a way to ask the user.
func WithAsk(ctx context.Context, a Ask) context.Context { return context.WithValue(ctx, askKey{}, a) }

// AskFrom returns the way to ask the user, or nil when the client cannot
// be asked.
func AskFrom(ctx context.Context) Ask {
	a, _ := ctx.Value(askKey{}).(Ask)
	return a
}

// AnswerMargin is how long before the call's own deadline a wait ends, to
// answer with what it found instead of being cut off.
const AnswerMargin = time.Second

// WithinCall is a wait of d cut to end AnswerMargin before ctx's
// deadline, and whether it was cut.
func WithinCall(ctx context.Context, d time.Duration) (time.Duration, bool) {
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl) - AnswerMargin; left < d {
			return max(0, left), true
		}
	}
	return d, false
}

// NeedResources is the error of a call without a worker's Resources (a
// tool that keeps state, run anywhere but in an Igor), naming who needs
// them; nil when the call has them.
func (c *Call) NeedResources(who string) error {
	if c == nil || c.Resources == nil {
		return Errorf(CodeInternal, "%s need a worker's resources (they run in an Igor)", who)
	}
	return nil
}
