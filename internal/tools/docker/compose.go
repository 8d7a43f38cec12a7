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
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/lines"
	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/docker/docker/api/types/container"
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
	// composeReadAfterStop is the time kept, after an attached compose up
	// stopped for the call's time, to read the project's containers and
	// answer: on a loaded machine the engine takes more than the call's
	// answer margin for it.
	composeReadAfterStop = 2 * time.Second
	// composeWaitPoll is how often compose_up's emulated wait looks.
	composeWaitPoll = 250 * time.Millisecond
	// composeMaxLogBytes is the most compose_logs' maxBytes may ask for
	// (its default is defaultOutputBytes, as docker_logs').
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
	argv  []string // "docker", "compose" or "docker-compose" or a path
	major int
	minor int
	patch int
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
	return p.ExitCode(), stopped, nil
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
	if r.cli, err = findCompose(ctx, settings.Get().Compose); err != nil {
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
	return composeTailOf(composeLines(s), n)
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
