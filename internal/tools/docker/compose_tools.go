package docker

// The five compose tools, over compose.go's run of the real Compose CLI.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	timetypes "github.com/docker/docker/api/types/time"
	"github.com/docker/docker/client"
)

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
		schema.Object(props...)).
		WithPhrases("bring up the stack", "docker-compose up", "start services", "spin up environment", "start docker-compose", "up --build", "launch dev stack", "start test environment")
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
			d = max(d-composeStopGrace-composeReadAfterStop, time.Second)
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
	var cs []composeContainer
	if out.code != 0 && (detach || !timedOut) {
		if detach {
			return nil, r.failure("up", out)
		}
		// Attached, compose's status may be a container's: an error only
		// when no container was made.
		var perr error
		if cs, perr = r.projectContainers(ctx, nil); perr != nil || len(cs) == 0 {
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
	if cs == nil || in.Wait && !nativeWait {
		// Read above when compose failed, and unchanged since it exited,
		// unless our wait ran meanwhile.
		if cs, err = r.projectContainers(ctx, nil); err != nil {
			return nil, err
		}
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
		schema.Object(props...)).
		WithPhrases("tear down the stack", "docker-compose down", "stop all services", "clean up environment", "tear down test environment", "down -v", "stop compose project", "destroy stack")
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
			schema.Object(props...)).
			WithPhrases("compose services status", "docker compose ps", "which services are running", "services running in the stack", "did a service exit", "state of each service", "stack status", "service health", "is the stack up"),
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
		schema.Integer("maxBytes", "Bound of the text: past it, the earliest lines of each container are left out, with a note").Default(defaultOutputBytes).Min(1000).Max(composeMaxLogBytes),
	)
	return tool.Tool{
		Def: def("compose_logs", groupCompose, "Read the logs (stdout and stderr) of a Compose project's containers, each line prefixed by its container (\"web-1 | ...\"), one container after another. "+
			"Returns {project, logs, lines, cut: a note when the bound left lines out}.", false,
			schema.Object(props...)).
			WithPhrases("all services logs", "docker compose logs", "stack logs", "logs of every service", "logs of one service", "docker-compose logs"),
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
	limit := boundOf(in.MaxBytes)
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
			// The capture's note of what it left out, then its first
			// line, partial: the section says the cut itself.
			_, text, _ = strings.Cut(text, "\n")
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
			schema.Object(props...)).
			WithPhrases("exec into compose service", "docker compose exec", "run in service container", "migrate inside service", "manage.py in service", "docker-compose exec", "run a command in a service of the compose project"),
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
	if len(in.Command) == 0 || len(in.Command) == 3 && in.Command[0] == "/bin/sh" && in.Command[1] == "-c" && strings.TrimSpace(in.Command[2]) == "" {
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
				if err != nil {
					seen[x] = true // gone
					continue
				}
				if ins.Pid <= 0 {
					// Created, not started yet (compose creates the exec,
					// then starts it; on a loaded machine the gap is long):
					// look again, or the exec is never found.
					continue
				}
				if !ins.Running {
					seen[x] = true // ended
					continue
				}
				got, err := r.execCommandOf(wctx, x)
				if err != nil {
					continue // look again
				}
				seen[x] = true
				if !slices.Equal(got, command) {
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
