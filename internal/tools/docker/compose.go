package docker

// Compose is the real Compose CLI, never re-implemented: `docker compose`
// (the docker CLI's plugin, v2) or `docker-compose` (v1, Python, or v2
// installed standalone), found once per process (findCompose) and run in a
// process group of its own that is killed when the call ends
// (composeRun.run). It is pointed at the daemon the other Docker tools use
// (DOCKER_HOST and the TLS files of engineOf's endpoint). What can be read
// without it is read through the Engine API: the state of the project's
// containers (compose_ps, compose_up's table, compose_up's wait on v1) and
// their logs (compose_logs); compose itself only says which containers
// those are (`ps -a -q`).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/barrhawk/barrhawk/internal/lines"
	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	timetypes "github.com/docker/docker/api/types/time"
	"github.com/docker/docker/client"
	"github.com/docker/docker/errdefs"
	"github.com/google/jsonschema-go/jsonschema"
)

// composeTools returns compose_up, compose_down, compose_ps, compose_logs
// and compose_exec.
func composeTools() []tool.Tool {
	return []tool.Tool{composeUpTool(), composeDownTool(), composePsTool(), composeLogsTool(), composeExecTool()}
}

// Bounds of running compose.
const (
	// composeKeep is how much of the head and of the tail of compose's
	// stdout and of its stderr a call keeps.
	composeKeep = 64 << 10
	// composeErrorLines is how many of the last lines of compose's stderr
	// an error or an answer quotes.
	composeErrorLines = 30
	// composeProbeTimeout bounds `<compose> version`.
	composeProbeTimeout = 20 * time.Second
	// composeStopGrace is how long an attached compose up is given to stop
	// its containers when the call's time runs out.
	composeStopGrace = 5 * time.Second
	// composeWaitPoll is how often compose_up's emulated wait looks.
	composeWaitPoll = 250 * time.Millisecond
	// composeDefaultLogBytes bounds compose_logs' text unless maxBytes says
	// otherwise.
	composeDefaultLogBytes = 100_000
	// composeMaxLogBytes is the most maxBytes may ask for.
	composeMaxLogBytes = 1_000_000
)

// Labels Compose puts on the containers of a project.
const (
	composeProjectLabel = "com.docker.compose.project"
	composeServiceLabel = "com.docker.compose.service"
	composeNumberLabel  = "com.docker.compose.container-number"
)

// composeInstall says how to get Compose.
const composeInstall = "install one: on Debian or Ubuntu `apt-get install docker-compose`, or the docker-compose-plugin package from Docker's apt repository (https://docs.docker.com/compose/install/)"

// ---- the compose command -------------------------------------------------

// composeCLI is a compose command that answered `version`.
type composeCLI struct {
	argv    []string // "docker", "compose" or "docker-compose" or a path
	version string   // "1.29.2", "2.24.5"
	major   int
	minor   int
	patch   int
}

// name is how messages show the command.
func (c *composeCLI) name() string { return strings.Join(c.argv, " ") }

// atLeast reports whether the command's version is maj.min.pat or later.
func (c *composeCLI) atLeast(maj, min, pat int) bool {
	if c.major != maj {
		return c.major > maj
	}
	if c.minor != min {
		return c.minor > min
	}
	return c.patch >= pat
}

// composeFound caches, per process, the command found for each value of
// the docker.compose setting ("" for the one found on PATH). Only what
// answered is kept: a compose installed after a failed look is found by
// the next call.
var composeFound = struct {
	sync.Mutex
	m map[string]*composeCLI
}{m: map[string]*composeCLI{}}

// composeVersionRE finds a version in `version`'s first line: v1 says
// "docker-compose version 1.29.2, build 5becea4c", v2 "Docker Compose
// version v2.24.5".
var composeVersionRE = regexp.MustCompile(`v?(\d+)\.(\d+)(?:\.(\d+))?`)

// findCompose returns the compose command of the docker.compose setting,
// or else the first of `docker compose` and `docker-compose` that answers
// `version`. None is a NOT_FOUND error saying how to install one and
// naming the setting.
func findCompose(ctx context.Context, setting string) (*composeCLI, error) {
	setting = strings.TrimSpace(setting)
	composeFound.Lock()
	c := composeFound.m[setting]
	composeFound.Unlock()
	if c != nil {
		return c, nil
	}
	if setting != "" {
		argv := strings.Fields(setting)
		c, err := probeCompose(ctx, argv)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, tool.Errorf(tool.CodeNotFound, "the docker.compose setting is %q, and `%s version` does not answer: %v; set docker.compose in barrhawk.yaml to \"docker compose\" (the Compose plugin) or to the path of docker-compose, or leave it empty to take the first of them found on PATH; if neither is installed, %s",
				setting, setting, err, composeInstall)
		}
		composeFound.Lock()
		composeFound.m[setting] = c
		composeFound.Unlock()
		return c, nil
	}
	var why []string
	for _, argv := range [][]string{{"docker", "compose"}, {"docker-compose"}} {
		c, err := probeCompose(ctx, argv)
		if err == nil {
			composeFound.Lock()
			composeFound.m[setting] = c
			composeFound.Unlock()
			return c, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		why = append(why, fmt.Sprintf("`%s version`: %v", strings.Join(argv, " "), err))
	}
	return nil, tool.Errorf(tool.CodeNotFound, "neither `docker compose` (the Compose plugin of the docker CLI) nor `docker-compose` was found on PATH (%s); %s; or set docker.compose in barrhawk.yaml to the compose command (\"docker compose\" or /path/to/docker-compose)",
		strings.Join(why, "; "), composeInstall)
}

// probeCompose runs `<argv> version` and reads the version it prints.
func probeCompose(ctx context.Context, argv []string) (*composeCLI, error) {
	if len(argv) == 0 {
		return nil, errors.New("empty command")
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return nil, fmt.Errorf("%s is not on PATH", argv[0])
	}
	pctx, cancel := context.WithTimeout(ctx, composeProbeTimeout)
	defer cancel()
	stdout, stderr := lines.NewCapture(4<<10, 0), lines.NewCapture(0, 4<<10)
	code, _, err := runComposeProcess(pctx, append(slices.Clone(argv), "version"), "", nil, stdout, stderr, composeStop{})
	if err != nil {
		if pctx.Err() != nil && ctx.Err() == nil {
			return nil, fmt.Errorf("no answer within %s", composeProbeTimeout)
		}
		return nil, err
	}
	if code != 0 {
		msg := strings.Join(composeTail(stderr.String(), 3), "; ")
		if msg == "" {
			msg = strings.Join(composeTail(stdout.String(), 3), "; ")
		}
		return nil, fmt.Errorf("exit status %d: %s", code, msg)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(stdout.String()), "\n")
	m := composeVersionRE.FindStringSubmatch(first)
	if m == nil {
		return nil, fmt.Errorf("it printed no version (%q)", tool.CutText(first, 200))
	}
	c := &composeCLI{argv: slices.Clone(argv)}
	c.major, _ = strconv.Atoi(m[1])
	c.minor, _ = strconv.Atoi(m[2])
	c.patch, _ = strconv.Atoi(m[3])
	c.version = fmt.Sprintf("%d.%d.%d", c.major, c.minor, c.patch)
	return c, nil
}

// composeStop says when a run of compose is stopped before it ends by
// itself: after After (0: never), with SIGTERM and Grace to end before
// SIGKILL (Grace 0: SIGKILL at once).
type composeStop struct {
	After, Grace time.Duration
}

// runComposeProcess runs argv in dir with env (nil: this process's) in a
// process group of its own, tied to this process, and returns its exit
// code and whether stop ended it. The group is killed when ctx is done
// (and ctx's error returned).
func runComposeProcess(ctx context.Context, argv []string, dir string, env []string, stdout, stderr io.Writer, stop composeStop) (int, bool, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, stdout, stderr
	p, err := proc.StartTied(cmd)
	if err != nil {
		return -1, false, err
	}
	var timer <-chan time.Time
	if stop.After > 0 {
		t := time.NewTimer(stop.After)
		defer t.Stop()
		timer = t.C
	}
	stopped := false
	select {
	case <-p.Done():
	case <-ctx.Done():
		p.Kill()
		return -1, false, ctx.Err()
	case <-timer:
		stopped = true
		if stop.Grace > 0 {
			p.Stop(stop.Grace)
		} else {
			p.Kill()
		}
	}
	_ = p.Err()
	st := p.Cmd.ProcessState
	if st == nil {
		return -1, stopped, nil
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), stopped, nil // as a shell says a signal
	}
	return st.ExitCode(), stopped, nil
}

// ---- the arguments every tool takes ----------------------------------------

// composeVarsArg is an object-of-variables property.
func composeVarsArg(name, desc string) schema.Prop {
	p := schema.Map(name, desc)
	p.Schema.AdditionalProperties = &jsonschema.Schema{Types: []string{"string", "number", "boolean"}}
	return p
}

// composeCommon are the arguments naming the project, which every compose
// tool takes.
type composeCommon struct {
	File             string   `json:"file"`
	Files            []string `json:"files"`
	Project          string   `json:"project"`
	Profiles         []string `json:"profiles"`
	EnvFile          string   `json:"envFile"`
	ProjectDirectory string   `json:"projectDirectory"`
	Env              envList  `json:"env"`
}

// composeCommonArgs are the properties of composeCommon.
func composeCommonArgs() []schema.Prop {
	return []schema.Prop{
		schema.String("file", "The compose file (-f), absolute or relative to the first allowed root; without it compose looks for docker-compose.yml, docker-compose.yaml, compose.yml or compose.yaml in projectDirectory or the first allowed root"),
		schema.Array("files", "More compose files, merged over file in order (-f each), as override files are", schema.StringItems()),
		schema.String("project", "Project name (-p); without it compose takes COMPOSE_PROJECT_NAME or the project directory's name"),
		schema.Array("profiles", "Profiles to enable (--profile each)", schema.StringItems()),
		schema.String("envFile", "An environment file for interpolation (--env-file), absolute or relative to the first allowed root"),
		schema.String("projectDirectory", "The project directory (--project-directory), where relative paths of the compose file are taken from; the default is the first file's directory"),
		composeVarsArg("env", "Environment variables compose sees, for ${VAR} interpolation in the compose file: {\"TAG\": \"1.2\"}"),
	}
}

// composeRun is what running compose for one call needs: the command, the
// global flags from the call's arguments, where it runs and with what
// environment, and the daemon's client.
type composeRun struct {
	cli    *composeCLI
	e      *engine
	global []string
	dir    string
	env    []string
	in     composeCommon
	files  []string // the compose files given, absolute
}

// prepareCompose checks the arguments naming the project (files that
// exist, variable names), reaches the daemon and finds compose.
func prepareCompose(ctx context.Context, call *tool.Call, in composeCommon) (*composeRun, error) {
	roots := rootsOf(ctx)
	base := ""
	if len(roots) > 0 {
		base = roots[0]
	}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(base, p)
	}
	r := &composeRun{in: in}
	check := func(arg, given string, wantDir bool) (string, error) {
		p := abs(given)
		st, err := os.Stat(p)
		switch {
		case err != nil && errors.Is(err, os.ErrNotExist):
			return "", tool.Errorf(tool.CodeInvalidArgs, "argument %q: %s does not exist (relative paths are taken from %s); give the path of an existing %s", arg, p, base, map[bool]string{true: "directory", false: "file"}[wantDir])
		case err != nil:
			return "", tool.Errorf(tool.CodeInvalidArgs, "argument %q: %s: %v", arg, p, err)
		case wantDir && !st.IsDir():
			return "", tool.Errorf(tool.CodeInvalidArgs, "argument %q: %s is a file, not a directory; give the project's directory", arg, p)
		case !wantDir && st.IsDir():
			return "", tool.Errorf(tool.CodeInvalidArgs, "argument %q: %s is a directory; give the compose file in it (such as %s)", arg, p, filepath.Join(p, "docker-compose.yml"))
		}
		return p, nil
	}
	var given []struct{ arg, path string }
	if in.File != "" {
		given = append(given, struct{ arg, path string }{"file", in.File})
	}
	for _, f := range in.Files {
		if f == "" {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"files\": an empty path; give each compose file's path")
		}
		given = append(given, struct{ arg, path string }{"files", f})
	}
	for _, g := range given {
		p, err := check(g.arg, g.path, false)
		if err != nil {
			return nil, err
		}
		r.files = append(r.files, p)
		r.global = append(r.global, "-f", p)
	}
	if in.Project != "" {
		r.global = append(r.global, "-p", in.Project)
	}
	for _, p := range in.Profiles {
		if p == "" {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"profiles\": an empty name; give the profiles' names, as in the services' profiles: lists")
		}
		r.global = append(r.global, "--profile", p)
	}
	if in.EnvFile != "" {
		p, err := check("envFile", in.EnvFile, false)
		if err != nil {
			return nil, err
		}
		r.global = append(r.global, "--env-file", p)
	}
	switch {
	case in.ProjectDirectory != "":
		p, err := check("projectDirectory", in.ProjectDirectory, true)
		if err != nil {
			return nil, err
		}
		r.global = append(r.global, "--project-directory", p)
		r.dir = p
	case len(r.files) > 0:
		r.dir = filepath.Dir(r.files[0])
	default:
		r.dir = base
	}
	if err := in.Env.check("env"); err != nil {
		return nil, err
	}
	for _, k := range composeDaemonVars {
		if _, ok := in.Env.get(k); ok {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"env\": %s is set by BarrHawk, so that compose speaks to the daemon the other Docker tools use; point them all at another daemon with the docker.host setting instead", k)
		}
	}
	e, err := engineOf(ctx, call)
	if err != nil {
		return nil, err
	}
	r.e = e
	if r.cli, err = findCompose(ctx, currentSettings().Compose); err != nil {
		return nil, err
	}
	r.env = composeEnviron(e.at, in.Env)
	return r, nil
}

// composeDaemonVars are the variables that say which daemon compose
// speaks to: composeEnviron sets them.
var composeDaemonVars = []string{"DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH"}

// composeEnviron is this process's environment pointed at the daemon at
// (DOCKER_HOST, and its TLS files), with vars added.
func composeEnviron(at endpoint, vars envList) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(composeDaemonVars, k) {
			env = append(env, kv)
		}
	}
	env = append(env, "DOCKER_HOST="+at.Host)
	if at.TLSDir != "" {
		env = append(env, "DOCKER_TLS_VERIFY=1", "DOCKER_CERT_PATH="+at.TLSDir)
	}
	return append(env, vars...)
}

// composeOut is what one run of compose gave.
type composeOut struct {
	code           int
	stdout, stderr *lines.Capture
	// stopped says composeRunOpts.stop ended it.
	stopped bool
}

// composeRunOpts are the options of one run.
type composeRunOpts struct {
	// progress reports each line of stderr as progress.
	progress bool
	// stop says when to stop compose before it ends by itself.
	stop composeStop
}

// run runs compose with the global flags and args, keeping the head and
// the tail of its output. An exit status other than 0 is in the result,
// not an error; a compose that could not start, or a call that ended
// first, is.
func (r *composeRun) run(ctx context.Context, args []string, o composeRunOpts) (*composeOut, error) {
	argv := slices.Concat(r.cli.argv, r.global, args)
	out := &composeOut{stdout: lines.NewCapture(composeKeep, composeKeep), stderr: lines.NewCapture(composeKeep, composeKeep)}
	var stderr io.Writer = out.stderr
	if p, ok := tool.ProgressAsked(ctx); ok && o.progress {
		n := 0
		stderr = io.MultiWriter(out.stderr, &composeLineWriter{line: func(s string) {
			n++
			p(float64(n), 0, s)
		}})
	}
	code, stopped, err := runComposeProcess(ctx, argv, r.dir, r.env, out.stdout, stderr, o.stop)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, tool.Errorf(tool.CodeToolError, "running %s: %v; check the docker.compose setting, or that %s is still installed", strings.Join(argv[:len(r.cli.argv)], " "), err, r.cli.name())
	}
	out.code, out.stopped = code, stopped
	return out, nil
}

// failure is the error of a compose command that exited non-zero: its
// exit status and the last lines of its stderr, and, when compose found
// no file because none was given, where it looked.
func (r *composeRun) failure(sub string, o *composeOut) error {
	tail := composeTail(o.stderr.String(), composeErrorLines)
	if len(tail) == 0 {
		tail = composeTail(o.stdout.String(), composeErrorLines)
	}
	said := strings.Join(tail, "\n")
	if said == "" {
		said = "(it printed nothing)"
	}
	msg := fmt.Sprintf("`%s %s` failed (exit status %d): %s", r.cli.name(), sub, o.code, said)
	if len(r.files) == 0 && strings.Contains(strings.ToLower(said), "configuration file") {
		msg += fmt.Sprintf("\nNo file was given, so compose looked for docker-compose.yml, docker-compose.yaml, compose.yml or compose.yaml in %s (and its parents); give file, or projectDirectory, to say where the project is", r.dir)
	}
	return tool.Errorf(tool.CodeToolError, "%s", msg)
}

// project is the project's name: as given, else the label of its
// containers, else what compose takes by default (COMPOSE_PROJECT_NAME,
// else the project directory's name, lowercased, with what is not a
// letter, digit, "-" or "_" left out).
func (r *composeRun) project(cs []composeContainer) string {
	if r.in.Project != "" {
		return r.in.Project
	}
	for _, c := range cs {
		if p := composeLabel(c.info, composeProjectLabel); p != "" {
			return p
		}
	}
	if p, _ := r.in.Env.get("COMPOSE_PROJECT_NAME"); p != "" {
		return p
	}
	if p := os.Getenv("COMPOSE_PROJECT_NAME"); p != "" {
		return p
	}
	var b strings.Builder
	for _, c := range strings.ToLower(filepath.Base(r.dir)) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteRune(c)
		}
	}
	return strings.TrimLeft(b.String(), "-_")
}

// ---- output lines ----------------------------------------------------------

// composeANSI matches terminal escapes compose may print.
var composeANSI = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// composeLines are the non-empty lines of s, without terminal escapes,
// carriage returns or runs of spaces.
func composeLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = composeANSI.ReplaceAllString(l, "")
		if i := strings.LastIndex(strings.TrimRight(l, "\r"), "\r"); i >= 0 {
			l = l[i+1:] // a line redrawn in place: its last state
		}
		l = strings.Join(strings.Fields(l), " ")
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// composeTail is the last n of composeLines(s).
func composeTail(s string, n int) []string {
	ls := composeLines(s)
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return ls
}

// composeProgressLines is composeLines without the lines compose v1
// prints when a step starts ("Creating web_1 ...") and again when it ends
// ("Creating web_1 ... done"): only the later is kept.
func composeProgressLines(s string) []string {
	ls := composeLines(s)
	var out []string
	for i, l := range ls {
		if strings.HasSuffix(l, " ...") {
			later := false
			for _, m := range ls[i+1:] {
				if strings.HasPrefix(m, l+" ") {
					later = true
					break
				}
			}
			if later {
				continue
			}
		}
		out = append(out, l)
	}
	return out
}

// composeSplitOutput is composeProgressLines of stderr with compose's
// warnings (a variable not set, an obsolete key) apart.
func composeSplitOutput(stderr string) (output, warnings []string) {
	for _, l := range composeProgressLines(stderr) {
		if composeWarningRE.MatchString(l) {
			warnings = append(warnings, l)
		} else {
			output = append(output, l)
		}
	}
	return output, warnings
}

// composeLineWriter calls line with each line written to it, cleaned as
// composeLines does; a line longer than composeKeep is passed on in parts.
type composeLineWriter struct {
	buf  []byte
	line func(string)
}

// Write passes on the complete lines of p; it never fails.
func (w *composeLineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			if len(w.buf) > composeKeep {
				i = len(w.buf) - 1
			} else {
				return len(p), nil
			}
		}
		for _, l := range composeLines(string(w.buf[:i+1])) {
			w.line(l)
		}
		w.buf = w.buf[i+1:]
	}
}

// ---- containers ------------------------------------------------------------

// composeContainer is one container of the project, as the Engine API
// describes it.
type composeContainer struct {
	info    container.InspectResponse
	service string
	number  int
}

// composeLabel is a label of the container ("" when it has none).
func composeLabel(info container.InspectResponse, key string) string {
	if info.Config == nil {
		return ""
	}
	return info.Config.Labels[key]
}

// containerIDs asks compose for the ids of the project's containers
// (`ps -a -q`: running and stopped, on v1 and v2 alike), of services when
// given.
func (r *composeRun) containerIDs(ctx context.Context, services []string) ([]string, error) {
	ids, o, err := r.psIDs(ctx, services)
	if err != nil {
		return nil, err
	}
	if o.code != 0 {
		return nil, r.failure(strings.Join(composePsArgs(services), " "), o)
	}
	return ids, nil
}

// composePsArgs are the arguments of `ps -a -q` of services.
func composePsArgs(services []string) []string {
	args := []string{"ps", "-a", "-q"}
	if len(services) > 0 {
		args = append(append(args, "--"), services...)
	}
	return args
}

// psIDs runs `ps -a -q` of services and reads the ids it prints; an exit
// status other than 0 is in the output, not an error.
func (r *composeRun) psIDs(ctx context.Context, services []string) ([]string, *composeOut, error) {
	o, err := r.run(ctx, composePsArgs(services), composeRunOpts{})
	if err != nil {
		return nil, nil, err
	}
	var ids []string
	for _, f := range strings.Fields(o.stdout.String()) {
		if composeIDRE.MatchString(f) {
			ids = append(ids, f)
		}
	}
	return ids, o, nil
}

// composeIDRE matches a container id as ps -q prints it.
var composeIDRE = regexp.MustCompile(`^[0-9a-f]{12,64}$`)

// containers reads the containers through the Engine API, sorted by
// service and number; one removed meanwhile is left out.
func (r *composeRun) containers(ctx context.Context, ids []string) ([]composeContainer, error) {
	var cs []composeContainer
	for _, id := range ids {
		info, err := r.e.cli.ContainerInspect(ctx, id)
		if err != nil {
			if errdefs.IsNotFound(err) {
				continue
			}
			return nil, r.e.apiError("container "+shortID(id), err, "")
		}
		c := composeContainer{info: info, service: composeLabel(info, composeServiceLabel)}
		c.number, _ = strconv.Atoi(composeLabel(info, composeNumberLabel))
		cs = append(cs, c)
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].service != cs[j].service {
			return cs[i].service < cs[j].service
		}
		if cs[i].number != cs[j].number {
			return cs[i].number < cs[j].number
		}
		return cs[i].info.Name < cs[j].info.Name
	})
	return cs, nil
}

// projectContainers is containerIDs then containers.
func (r *composeRun) projectContainers(ctx context.Context, services []string) ([]composeContainer, error) {
	ids, err := r.containerIDs(ctx, services)
	if err != nil {
		return nil, err
	}
	return r.containers(ctx, ids)
}

// composeRow is a container's row of the table: id, name, service, image,
// state, status, ports, health, and exitCode when it exited.
func composeRow(c composeContainer) map[string]any {
	info := c.info
	row := map[string]any{
		"id": shortID(info.ID), "name": strings.TrimPrefix(info.Name, "/"), "service": c.service,
		"ports": inspectPorts(info.NetworkSettings), "health": "",
	}
	if info.Config != nil {
		row["image"] = info.Config.Image
	}
	if st := info.State; st != nil {
		row["state"] = string(st.Status)
		row["status"] = composeStatus(st)
		if st.Health != nil {
			row["health"] = string(st.Health.Status)
		}
		if st.Status == container.StateExited || st.Status == container.StateDead {
			row["exitCode"] = st.ExitCode
		}
	}
	return row
}

// composeRows is the table of cs.
func composeRows(cs []composeContainer) []map[string]any {
	rows := make([]map[string]any, len(cs))
	for i, c := range cs {
		rows[i] = composeRow(c)
	}
	return rows
}

// composeStatus says what docker ps's STATUS column says: "Up 3 minutes
// (healthy)", "Exited (0) 2 minutes ago", "Created".
func composeStatus(st *container.State) string {
	parse := func(s string) time.Time {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil || t.Year() < 2000 {
			return time.Time{}
		}
		return t
	}
	switch st.Status {
	case container.StateRunning:
		s := "Up " + strings.TrimSuffix(ago(parse(st.StartedAt)), " ago")
		if st.Health != nil && st.Health.Status != "" && st.Health.Status != "none" {
			s += " (" + string(st.Health.Status) + ")"
		}
		return s
	case container.StatePaused:
		return "Up " + strings.TrimSuffix(ago(parse(st.StartedAt)), " ago") + " (Paused)"
	case container.StateRestarting:
		return fmt.Sprintf("Restarting (%d) %s", st.ExitCode, ago(parse(st.FinishedAt)))
	case container.StateExited:
		return strings.TrimSpace(fmt.Sprintf("Exited (%d) %s", st.ExitCode, ago(parse(st.FinishedAt))))
	case container.StateCreated:
		return "Created"
	case container.StateDead:
		return "Dead"
	case container.StateRemoving:
		return "Removal In Progress"
	}
	return string(st.Status)
}

// ---- compose_up ------------------------------------------------------------

type composeUpIn struct {
	composeCommon
	Services []string `json:"services"`
	Detach   *bool    `json:"detach"`
	Build    bool     `json:"build"`
	Recreate bool     `json:"recreate"`
	Wait     bool     `json:"wait"`
}

// composeServicesArg is the services property.
func composeServicesArg(desc string) schema.Prop {
	return schema.Array("services", desc, schema.StringItems())
}

// composeUpTool is compose_up.
func composeUpTool() tool.Tool {
	props := append(composeCommonArgs(),
		composeServicesArg("Services to start, with the services they depend on (default: all)"),
		schema.Boolean("detach", "Start in the background and answer at once (up -d); false runs up --abort-on-container-exit attached, until a container exits or the call's time is nearly out, and answers its output").Default(true),
		schema.Boolean("build", "Build images before starting (--build)").Default(false),
		schema.Boolean("recreate", "Recreate containers even if their configuration and image are unchanged (--force-recreate)").Default(false),
		schema.Boolean("wait", "With detach: answer only once every container is running, and healthy when it has a healthcheck (compose v2's --wait; with compose v1 BarrHawk waits through the Engine API); a container that exits non-zero or turns unhealthy is an error").Default(false),
	)
	d := def("compose_up", groupCompose, "Create and start a Compose project's services with the real Compose CLI (docker compose or docker-compose), as `docker compose up -d` does. "+
		"Returns {project, services: one row per container as compose_ps gives them, output: compose's last lines}; attached (detach: false) also {exitCode, logs}. Progress is reported line by line.", true,
		schema.Object(props...))
	d.Timeout = 10 * time.Minute // pulls and builds take time
	return tool.Tool{Def: d, Run: tool.Typed(composeUp)}
}

// composeUp runs compose_up.
func composeUp(ctx context.Context, in composeUpIn, call *tool.Call) (any, error) {
	detach := in.Detach == nil || *in.Detach
	if in.Wait && !detach {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"wait\": it waits for services started in the background, and detach is false; leave detach out (or true) to wait, or leave wait out to run attached")
	}
	r, err := prepareCompose(ctx, call, in.composeCommon)
	if err != nil {
		return nil, err
	}
	args := []string{"up"}
	nativeWait := in.Wait && r.cli.atLeast(2, 1, 1)
	var o composeRunOpts
	o.progress = true
	if detach {
		args = append(args, "-d")
		if nativeWait {
			args = append(args, "--wait")
		}
	} else {
		// Stopped at the end of the call, compose stops the containers:
		// within composeStopGrace.
		args = append(args, "--abort-on-container-exit", "--no-color", "--timeout", strconv.Itoa(int(composeStopGrace/time.Second)-2))
		d, cut := tool.WithinCall(ctx, 24*time.Hour)
		if cut {
			d = max(d-composeStopGrace, time.Second)
		}
		o.stop = composeStop{After: d, Grace: composeStopGrace}
	}
	if in.Build {
		args = append(args, "--build")
	}
	if in.Recreate {
		args = append(args, "--force-recreate")
	}
	if len(in.Services) > 0 {
		args = append(append(args, "--"), in.Services...)
	}
	started := time.Now()
	out, err := r.run(ctx, args, o)
	if err != nil {
		return nil, err
	}
	timedOut := out.stopped
	if out.code != 0 && (detach || !timedOut) {
		if detach {
			return nil, r.failure("up", out)
		}
		// Attached, compose's status may be a container's: an error only
		// when no container was made.
		if cs, perr := r.projectContainers(ctx, nil); perr != nil || len(cs) == 0 {
			return nil, r.failure("up", out)
		}
	}
	output, warnings := composeSplitOutput(out.stderr.String())
	answer := map[string]any{"output": composeTailOf(output, composeErrorLines)}
	if len(warnings) > 0 {
		answer["warnings"] = warnings
	}
	if in.Wait && !nativeWait {
		if err := r.waitReady(ctx, in.Services, answer); err != nil {
			return nil, err
		}
	}
	cs, err := r.projectContainers(ctx, nil)
	if err != nil {
		return nil, err
	}
	answer["project"] = r.project(cs)
	answer["services"] = composeRows(cs)
	if !detach {
		answer["exitCode"] = out.code
		answer["logs"] = out.stdout.String()
		if timedOut {
			answer["timedOut"] = true
			answer["note"] = fmt.Sprintf("the call's time was nearly out after %s, so compose was stopped (and stopped the containers); give the call a longer timeout, or run detached", time.Since(started).Round(time.Second))
		}
	}
	return answer, nil
}

// composeTailOf is the last n of ls.
func composeTailOf(ls []string, n int) []string {
	if len(ls) > n {
		return ls[len(ls)-n:]
	}
	if ls == nil {
		return []string{}
	}
	return ls
}

// waitReady waits, within the call, until every container of services
// (all when none) is running, and healthy when it has a healthcheck (or
// exited 0, a one-shot job). A container that exits non-zero or turns
// unhealthy is an error; the call's time running out is said in answer.
func (r *composeRun) waitReady(ctx context.Context, services []string, answer map[string]any) error {
	ids, err := r.containerIDs(ctx, services)
	if err != nil {
		return err
	}
	d, _ := tool.WithinCall(ctx, 24*time.Hour)
	deadline := time.Now().Add(d)
	for {
		cs, err := r.containers(ctx, ids)
		if err != nil {
			return err
		}
		var waiting []string
		for _, c := range cs {
			st, name := c.info.State, strings.TrimPrefix(c.info.Name, "/")
			if st == nil {
				continue
			}
			switch {
			case st.Status == container.StateExited || st.Status == container.StateDead:
				if st.ExitCode != 0 || st.Status == container.StateDead {
					return tool.Errorf(tool.CodeToolError, "waiting for the services: container %s (service %s) exited with code %d; compose_logs {services: [%q]} shows why", name, c.service, st.ExitCode, c.service)
				}
			case st.Health != nil && st.Health.Status == container.Unhealthy:
				return tool.Errorf(tool.CodeToolError, "waiting for the services: container %s (service %s) is unhealthy%s; compose_logs shows its output", name, c.service, composeLastProbe(st.Health))
			case !st.Running:
				waiting = append(waiting, name+" is "+string(st.Status))
			case st.Health != nil && st.Health.Status != container.Healthy && st.Health.Status != container.NoHealthcheck:
				waiting = append(waiting, name+" is "+string(st.Health.Status))
			}
		}
		if len(waiting) == 0 {
			return nil
		}
		if !time.Now().Before(deadline) {
			answer["waitTimedOut"] = true
			answer["note"] = "the call's time was nearly out before every service was ready (" + strings.Join(waiting, ", ") + "); compose_ps shows them now, or give the call a longer timeout"
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(composeWaitPoll, time.Until(deadline))):
		}
	}
}

// composeLastProbe is the output of a healthcheck's last probe, for
// messages.
func composeLastProbe(h *container.Health) string {
	if h == nil || len(h.Log) == 0 {
		return ""
	}
	last := h.Log[len(h.Log)-1]
	return fmt.Sprintf(" (its last healthcheck exited %d: %s)", last.ExitCode, tool.CutText(strings.TrimSpace(last.Output), 300))
}

// ---- compose_down ----------------------------------------------------------

type composeDownIn struct {
	composeCommon
	Volumes       bool `json:"volumes"`
	RemoveOrphans bool `json:"removeOrphans"`
	Timeout       *int `json:"timeout"`
}

// composeDownTool is compose_down.
func composeDownTool() tool.Tool {
	props := append(composeCommonArgs(),
		schema.Boolean("volumes", "Also remove the named volumes of the compose file and the containers' anonymous volumes (-v)").Default(false),
		schema.Boolean("removeOrphans", "Also remove containers of services no longer in the compose file (--remove-orphans)").Default(false),
		schema.Integer("timeout", "Seconds each container is given to stop before it is killed (-t; compose's default is 10)").Min(0).Max(3600),
	)
	d := def("compose_down", groupCompose, "Stop and remove a Compose project's containers and networks (and volumes with volumes: true) with the real Compose CLI, as `docker compose down` does. "+
		"Returns {project, output: compose's lines, removed: the lines saying what was removed}.", true,
		schema.Object(props...))
	d.Timeout = 5 * time.Minute
	return tool.Tool{Def: d, Run: tool.Typed(composeDown)}
}

// composeDown runs compose_down.
func composeDown(ctx context.Context, in composeDownIn, call *tool.Call) (any, error) {
	r, err := prepareCompose(ctx, call, in.composeCommon)
	if err != nil {
		return nil, err
	}
	args := []string{"down"}
	if in.Volumes {
		args = append(args, "-v")
	}
	if in.RemoveOrphans {
		args = append(args, "--remove-orphans")
	}
	if in.Timeout != nil {
		args = append(args, "-t", strconv.Itoa(*in.Timeout))
	}
	out, err := r.run(ctx, args, composeRunOpts{progress: true})
	if err != nil {
		return nil, err
	}
	if out.code != 0 {
		return nil, r.failure("down", out)
	}
	output, warnings := composeSplitOutput(out.stderr.String())
	removed := []string{}
	for _, l := range output {
		if strings.Contains(strings.ToLower(l), "remov") {
			removed = append(removed, l)
		}
	}
	answer := map[string]any{"project": r.project(nil), "output": composeTailOf(output, 200), "removed": removed}
	if len(warnings) > 0 {
		answer["warnings"] = warnings
	}
	return answer, nil
}

// ---- compose_ps ------------------------------------------------------------

type composePsIn struct {
	composeCommon
	Services []string `json:"services"`
}

// composePsTool is compose_ps.
func composePsTool() tool.Tool {
	props := append(composeCommonArgs(), composeServicesArg("Only these services' containers (default: all)"))
	return tool.Tool{
		Def: def("compose_ps", groupCompose, "List a Compose project's containers, running and stopped: compose says which (ps -q), the Engine API what they are. "+
			"Returns {project, services: [{id, name, service, image, state, status, ports (\"127.0.0.1:8080->80/tcp\"), health, exitCode when exited}]}.", false,
			schema.Object(props...)),
		Run: tool.Typed(func(ctx context.Context, in composePsIn, call *tool.Call) (any, error) {
			r, err := prepareCompose(ctx, call, in.composeCommon)
			if err != nil {
				return nil, err
			}
			cs, err := r.projectContainers(ctx, in.Services)
			if err != nil {
				return nil, err
			}
			return map[string]any{"project": r.project(cs), "services": composeRows(cs)}, nil
		}),
	}
}

// ---- compose_logs ----------------------------------------------------------

type composeLogsIn struct {
	composeCommon
	Services []string `json:"services"`
	Tail     *int     `json:"tail"`
	Since    string   `json:"since"`
	MaxBytes int      `json:"maxBytes"`
}

// composeLogsTool is compose_logs.
func composeLogsTool() tool.Tool {
	props := append(composeCommonArgs(),
		composeServicesArg("Only these services' logs (default: all)"),
		schema.Integer("tail", "Only the last lines of each container (default: all)").Min(0),
		schema.String("since", "Only what was logged since then: a duration back from now (\"10m\", \"1h30m\") or a timestamp (RFC 3339, \"2024-05-01T10:00:00Z\", or Unix seconds), as docker logs --since takes it"),
		schema.Integer("maxBytes", "Bound of the text: past it, the earliest lines of each container are left out, with a note").Default(composeDefaultLogBytes).Min(1000).Max(composeMaxLogBytes),
	)
	return tool.Tool{
		Def: def("compose_logs", groupCompose, "Read the logs (stdout and stderr) of a Compose project's containers, each line prefixed by its container (\"web-1 | ...\"), one container after another. "+
			"Returns {project, logs, lines, cut: a note when the bound left lines out}.", false,
			schema.Object(props...)),
		Run: tool.Typed(composeLogs),
	}
}

// composeSection is one container's lines in compose_logs.
type composeSection struct {
	prefix  string
	lines   []string
	size    int  // bytes of the lines with prefix and newline
	dropped int  // lines left out to fit
	partial bool // reading kept only the last bytes: lines before them are unknown
}

// composeLogs runs compose_logs.
func composeLogs(ctx context.Context, in composeLogsIn, call *tool.Call) (any, error) {
	if in.Since != "" {
		if _, err := timetypes.GetTimestamp(in.Since, time.Now()); err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"since\": %q is neither a duration (\"10m\", \"1h30m\") nor a timestamp (\"2024-05-01T10:00:00Z\", or Unix seconds): %v", in.Since, err)
		}
	}
	limit := in.MaxBytes
	if limit <= 0 {
		limit = composeDefaultLogBytes
	}
	r, err := prepareCompose(ctx, call, in.composeCommon)
	if err != nil {
		return nil, err
	}
	cs, err := r.projectContainers(ctx, in.Services)
	if err != nil {
		return nil, err
	}
	answer := map[string]any{"project": r.project(cs)}
	if len(cs) == 0 {
		answer["logs"], answer["lines"] = "", 0
		answer["note"] = "the project has no containers; compose_up creates them"
		return answer, nil
	}
	opts := container.LogsOptions{ShowStdout: true, ShowStderr: true, Since: in.Since, Tail: "all"}
	if in.Tail != nil {
		opts.Tail = strconv.Itoa(*in.Tail)
	}
	names := make([]string, len(cs))
	width := 0
	for i, c := range cs {
		names[i] = composeLogName(c)
		width = max(width, len(names[i]))
	}
	sections := make([]composeSection, len(cs))
	total, kept := 0, 0
	for i, c := range cs {
		text, dropped, err := r.e.logsOf(ctx, c.info, opts, limit)
		if err != nil {
			return nil, err
		}
		s := composeSection{prefix: fmt.Sprintf("%-*s | ", width, names[i])}
		if dropped > 0 {
			// The capture kept the last bytes: the first line is partial.
			_, text, _ = strings.Cut(text, "\n")
		}
		text = strings.TrimSuffix(text, "\n")
		if text != "" {
			s.lines = strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
		}
		for _, l := range s.lines {
			s.size += len(s.prefix) + len(l) + 1
		}
		s.partial = dropped > 0
		total += s.size + int(dropped)
		sections[i] = s
	}
	composeFitSections(sections, limit)
	var b strings.Builder
	n := 0
	cutSome := false
	for _, s := range sections {
		switch {
		case s.partial:
			fmt.Fprintf(&b, "%s[... earlier lines left out ...]\n", s.prefix)
			cutSome = true
		case s.dropped > 0:
			fmt.Fprintf(&b, "%s[... the first %d lines left out ...]\n", s.prefix, s.dropped)
			cutSome = true
		}
		for _, l := range s.lines {
			b.WriteString(s.prefix)
			b.WriteString(l)
			b.WriteByte('\n')
			n++
		}
		kept += s.size
	}
	answer["logs"], answer["lines"] = b.String(), n
	if cutSome {
		answer["cut"] = fmt.Sprintf("about %d of %d bytes of logs are shown (maxBytes %d): the earliest lines of each container were left out; lower tail or give since to read less, or services to read one", kept, total, limit)
	}
	return answer, nil
}

// composeLogName is how compose_logs prefixes a container's lines: its
// service and number ("web-1"), or its name.
func composeLogName(c composeContainer) string {
	if c.service != "" && c.number > 0 {
		return fmt.Sprintf("%s-%d", c.service, c.number)
	}
	if c.service != "" {
		return c.service
	}
	return strings.TrimPrefix(c.info.Name, "/")
}

// composeFitSections leaves out the earliest lines of the sections until
// they fit in limit bytes, sharing it fairly: a section smaller than its
// share keeps all its lines and leaves the rest to the others.
func composeFitSections(ss []composeSection, limit int) {
	total := 0
	for _, s := range ss {
		total += s.size
	}
	if total <= limit {
		return
	}
	order := make([]int, len(ss))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return ss[order[a]].size < ss[order[b]].size })
	left := limit
	for k, i := range order {
		share := left / (len(order) - k)
		s := &ss[i]
		if s.size > share {
			drop := 0
			for s.size > share && drop < len(s.lines) {
				s.size -= len(s.prefix) + len(s.lines[drop]) + 1
				drop++
			}
			s.lines = s.lines[drop:]
			s.dropped += drop
		}
		left -= s.size
	}
}

// ---- compose_exec ----------------------------------------------------------

type composeExecIn struct {
	composeCommon
	Service string  `json:"service"`
	Command words   `json:"command"`
	User    string  `json:"user"`
	Workdir string  `json:"workdir"`
	ExecEnv envList `json:"execEnv"`
	Index   int     `json:"index"`
}

// composeExecTool is compose_exec.
func composeExecTool() tool.Tool {
	props := append(composeCommonArgs(),
		schema.String("service", "The service to run the command in").Required(),
		schema.Array("command", "The command: an array of words ([\"ls\", \"-l\", \"/\"]), or a string run with sh -c (\"ls -l / | wc -l\")", schema.StringItems()).Types("array", "string").Required(),
		schema.String("user", "User to run it as (name, uid or uid:gid; --user)"),
		schema.String("workdir", "Working directory in the container (--workdir)"),
		composeVarsArg("execEnv", "Environment variables for the command (-e each): {\"DEBUG\": \"1\"}"),
		schema.Integer("index", "Which container of a scaled service (--index; default 1)").Min(1),
	)
	return tool.Tool{
		Def: def("compose_exec", groupCompose, "Run a command in a running container of a Compose service with the real Compose CLI (exec -T, no terminal), and answer its exit code, stdout and stderr apart. "+
			"The call's timeout bounds it. Returns {exitCode, stdout, stderr} (warnings: compose's own, when it printed any).", true,
			schema.Object(props...)),
		Run: tool.Typed(composeExec),
	}
}

// composeWarningRE matches the warnings compose prints before running
// anything (a variable the file uses and nobody set, an obsolete version
// key), v1's and v2's.
var composeWarningRE = regexp.MustCompile(`^(WARNING: |time="[^"]*" level=warning msg=)|variable is not set\. Defaulting to a blank string\.$`)

// composeExecWarningRE is the part of composeWarningRE that cannot be the
// exec'd command's own stderr.
var composeExecWarningRE = regexp.MustCompile(`^time="[^"]*" level=warning msg=|variable is not set\. Defaulting to a blank string\.$`)

// composeExec runs compose_exec.
func composeExec(ctx context.Context, in composeExecIn, call *tool.Call) (any, error) {
	if len(in.Command) == 0 || len(in.Command) == 3 && in.Command[0] == "sh" && in.Command[1] == "-c" && strings.TrimSpace(in.Command[2]) == "" {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"command\": empty; give the command, such as [\"ls\", \"-l\", \"/\"] or \"ls -l /\"")
	}
	if err := in.ExecEnv.check("execEnv"); err != nil {
		return nil, err
	}
	r, err := prepareCompose(ctx, call, in.composeCommon)
	if err != nil {
		return nil, err
	}
	args := []string{"exec", "-T"}
	if in.User != "" {
		args = append(args, "--user", in.User)
	}
	if in.Workdir != "" {
		args = append(args, "--workdir", in.Workdir)
	}
	if in.Index > 0 {
		args = append(args, "--index", strconv.Itoa(in.Index))
	}
	for _, kv := range in.ExecEnv {
		args = append(args, "-e", kv)
	}
	args = append(append(args, "--", in.Service), in.Command...)
	started := time.Now()
	// Compose's end does not end the exec it started: know it, to kill it
	// when the call's time runs out (and the next Igor kills it if this
	// one dies first: execs.go).
	watch := r.watchExec(ctx, in.Service, in.Index, in.Command)
	d, _ := tool.WithinCall(ctx, 24*time.Hour)
	out, err := r.run(ctx, args, composeRunOpts{stop: composeStop{After: d}})
	tracked := watch.end()
	if tracked != nil {
		defer tracked.done()
	}
	if err != nil {
		if tracked != nil {
			tracked.kill()
		}
		return nil, err
	}
	if out.stopped {
		killed := tracked != nil && tracked.kill()
		note := fmt.Sprintf("the command ran past the call's time (%s), so compose was killed", time.Since(started).Round(time.Millisecond))
		if killed {
			note += " and so was the command"
		} else {
			note += "; the command may still run in the container (its process could not be found from here: a remote daemon, or the project's name not known)"
		}
		stderr, _ := composeSplitWarnings(out.stderr.String())
		return map[string]any{
			"timedOut": true, "killed": killed, "stdout": out.stdout.String(), "stderr": stderr,
			"note": note + "; give the call a longer timeout",
		}, nil
	}
	if out.code != 0 {
		// Compose's own failures (no such service, no running container)
		// end as the command's exit codes do: tell them apart.
		if err := r.checkExecTarget(ctx, in.Service, in.Index, out); err != nil {
			return nil, err
		}
	}
	stderr, warnings := composeSplitWarnings(out.stderr.String())
	answer := map[string]any{
		"exitCode": out.code, "stdout": out.stdout.String(), "stderr": stderr,
		"durationMs": time.Since(started).Milliseconds(),
	}
	if len(warnings) > 0 {
		answer["warnings"] = warnings
	}
	return answer, nil
}

// composeExecWatch looks, while compose exec runs, for the exec it starts
// in the service's container, and tracks it (execs.go).
type composeExecWatch struct {
	cancel context.CancelFunc
	done   chan struct{}
	found  *trackedExec
}

// watchExec starts looking for the exec of command that compose is about
// to start in the container of service at index (default 1): an exec of
// that container, new since now, whose process's command line is command.
// It looks only where the exec could be killed: a local daemon on Linux,
// and a container found through the project's name.
func (r *composeRun) watchExec(ctx context.Context, service string, index int, command []string) *composeExecWatch {
	w := &composeExecWatch{cancel: func() {}, done: make(chan struct{})}
	if runtime.GOOS != "linux" || !strings.HasPrefix(r.e.at.Host, "unix://") {
		close(w.done)
		return w
	}
	if index <= 0 {
		index = 1
	}
	cs, err := r.e.cli.ContainerList(ctx, container.ListOptions{Filters: filters.NewArgs(
		filters.Arg("label", composeProjectLabel+"="+r.project(nil)),
		filters.Arg("label", composeServiceLabel+"="+service),
		filters.Arg("label", composeNumberLabel+"="+strconv.Itoa(index)))})
	if err != nil || len(cs) != 1 {
		close(w.done)
		return w
	}
	id := cs[0].ID
	info, err := r.e.cli.ContainerInspect(ctx, id)
	if err != nil {
		close(w.done)
		return w
	}
	seen := map[string]bool{}
	for _, x := range info.ExecIDs {
		seen[x] = true
	}
	wctx, cancel := context.WithCancel(ctx)
	w.cancel = cancel
	go func() {
		defer close(w.done)
		pause := 20 * time.Millisecond
		for {
			select {
			case <-wctx.Done():
				return
			case <-time.After(pause):
			}
			pause = min(2*pause, 500*time.Millisecond)
			info, err := r.e.cli.ContainerInspect(wctx, id)
			if err != nil {
				return
			}
			for _, x := range info.ExecIDs {
				if seen[x] {
					continue
				}
				ins, err := r.e.cli.ContainerExecInspect(wctx, x)
				if err != nil || !ins.Running {
					seen[x] = true
					continue
				}
				if ins.Pid <= 0 {
					continue // not started yet: look again
				}
				seen[x] = true
				if got, err := r.execCommandOf(wctx, x); err != nil || !slices.Equal(got, command) {
					continue
				}
				w.found = r.e.track(wctx, id, x)
				return
			}
		}
	}()
	return w
}

// execCommandOf is the command an exec runs, from the Engine API's
// GET /exec/{id}/json: its ProcessConfig, which the client's
// ContainerExecInspect does not return.
func (r *composeRun) execCommandOf(ctx context.Context, execID string) ([]string, error) {
	path := "/exec/" + url.PathEscape(execID) + "/json"
	if v := r.e.cli.ClientVersion(); v != "" {
		path = "/v" + v + path
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+client.DummyHost+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := r.e.cli.HTTPClient().Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	var v struct {
		ProcessConfig struct {
			Entrypoint string   `json:"entrypoint"`
			Arguments  []string `json:"arguments"`
		}
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&v); err != nil {
		return nil, err
	}
	return append([]string{v.ProcessConfig.Entrypoint}, v.ProcessConfig.Arguments...), nil
}

// end stops looking and returns the exec found, or nil.
func (w *composeExecWatch) end() *trackedExec {
	w.cancel()
	<-w.done
	return w.found
}

// checkExecTarget says, after an exec that exited non-zero, whether the
// service has a running container at index (default 1); nil means the
// status was the command's. v1 exits 1 with no message when the container
// is not running.
func (r *composeRun) checkExecTarget(ctx context.Context, service string, index int, exec *composeOut) error {
	ids, ps, err := r.psIDs(ctx, []string{service})
	if err != nil {
		return err
	}
	if ps.code != 0 {
		// No such service, or a project compose cannot read.
		said := composeTail(exec.stderr.String(), composeErrorLines)
		if len(said) == 0 {
			said = composeTail(ps.stderr.String(), composeErrorLines)
		}
		if len(said) == 0 {
			said = []string{fmt.Sprintf("exit status %d, and no message", exec.code)}
		}
		return tool.Errorf(tool.CodeToolError, "compose exec in service %q: %s\ncompose_ps lists the project's containers and their services", service, strings.Join(said, "\n"))
	}
	cs, err := r.containers(ctx, ids)
	if err != nil {
		return err
	}
	if index <= 0 {
		index = 1
	}
	var states []string
	for _, c := range cs {
		if c.service != service {
			continue
		}
		if c.number == index || c.number == 0 && index == 1 {
			if c.info.State != nil && c.info.State.Running {
				return nil
			}
			state := "not running"
			if c.info.State != nil {
				state = composeStatus(c.info.State)
			}
			return tool.Errorf(tool.CodeToolError, "compose exec in service %q: its container %s is %s, and exec needs a running one; compose_up starts it, compose_logs shows why it stopped", service, strings.TrimPrefix(c.info.Name, "/"), state)
		}
		states = append(states, fmt.Sprintf("%s (index %d)", strings.TrimPrefix(c.info.Name, "/"), c.number))
	}
	if len(states) == 0 {
		said := strings.Join(composeTail(exec.stderr.String(), composeErrorLines), "\n")
		if said != "" {
			said = ": " + said
		}
		return tool.Errorf(tool.CodeToolError, "compose exec in service %q: the service has no container%s; compose_up starts it", service, said)
	}
	return tool.Errorf(tool.CodeInvalidArgs, "argument \"index\": service %q has no container of index %d; it has %s", service, index, strings.Join(states, ", "))
}

// composeSplitWarnings takes compose's own warnings off the start of an
// exec's stderr, leaving the command's.
func composeSplitWarnings(stderr string) (string, []string) {
	var warnings []string
	for stderr != "" {
		line, rest, _ := strings.Cut(stderr, "\n")
		clean := strings.TrimSpace(composeANSI.ReplaceAllString(line, ""))
		if clean == "" || !composeExecWarningRE.MatchString(clean) {
			break
		}
		warnings = append(warnings, clean)
		stderr = rest
	}
	return stderr, warnings
}
