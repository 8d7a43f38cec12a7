package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/lines"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/errdefs"
	"github.com/docker/docker/pkg/stdcopy"
	"github.com/docker/go-connections/nat"
)

func containerTools() []tool.Tool {
	return []tool.Tool{psTool(), runTool(), stopTool(), rmTool(), logsTool(), execTool(), inspectTool()}
}

// Bounds of what a call reads back.
const (
	// defaultOutputBytes bounds logs and a command's stdout and stderr
	// unless maxBytes says otherwise.
	defaultOutputBytes = 100_000
	maxOutputBytes     = 4 << 20
)

// listHint says which tool lists containers, for NOT_FOUND.
const listHint = "docker_ps {all: true}"

// words is an argument given as an array of strings or one string; a
// string is run by /bin/sh -c, as a Dockerfile's shell form.
type words []string

// UnmarshalJSON takes ["a","b"] or "a b".
func (w *words) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if s == "" {
			*w = nil
			return nil
		}
		*w = words{"/bin/sh", "-c", s}
		return nil
	}
	var a []string
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("expected an array of strings or one string")
	}
	*w = a
	return nil
}

// wordsArg is a command-like argument.
func wordsArg(name, desc string) schema.Prop {
	return schema.Any(name, desc+` (an array, ["sh","-c","echo hi"], runs as given; a string runs with /bin/sh -c)`).Types("array", "string")
}

// envList reads env given as {"K":"V"} or ["K=V"].
type envList []string

// UnmarshalJSON takes an object or an array of K=V.
func (e *envList) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err == nil {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			v := m[k]
			switch v := v.(type) {
			case string:
				*e = append(*e, k+"="+v)
			case nil:
				*e = append(*e, k+"=")
			default:
				*e = append(*e, fmt.Sprintf("%s=%v", k, v))
			}
		}
		return nil
	}
	var a []string
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf(`expected an object {"KEY":"value"} or an array ["KEY=value"]`)
	}
	*e = a
	return nil
}

// check refuses a variable without a name ("=x", "") or with a NUL.
func (e envList) check(arg string) error {
	for _, kv := range e {
		k, _, _ := strings.Cut(kv, "=")
		if k == "" || strings.ContainsRune(kv, 0) {
			return tool.Errorf(tool.CodeInvalidArgs, "argument %q: %q is not NAME=value; names are like GREETING or APP_PORT", arg, kv)
		}
	}
	return nil
}

// get is the value of variable k, and whether it is set.
func (e envList) get(k string) (string, bool) {
	for _, kv := range e {
		if name, v, _ := strings.Cut(kv, "="); name == k {
			return v, true
		}
	}
	return "", false
}

func envArg(desc string) schema.Prop {
	return schema.Any("env", desc+` ({"KEY":"value"} or ["KEY=value"])`).Types("object", "array")
}

// --- docker_ps

type psIn struct {
	All    bool    `json:"all"`
	Filter filterV `json:"filter"`
}

// filterV is docker's --filter: "key=value" strings, or an object of
// key → value (or values).
type filterV []string

// UnmarshalJSON takes "k=v", ["k=v"], or {"k":"v"} / {"k":["v1","v2"]}.
func (f *filterV) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if s != "" {
			*f = filterV{s}
		}
		return nil
	}
	var a []string
	if err := json.Unmarshal(b, &a); err == nil {
		*f = a
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf(`expected "key=value", an array of them, or an object {"key":"value"}`)
	}
	for k, v := range m {
		switch v := v.(type) {
		case []any:
			for _, x := range v {
				*f = append(*f, fmt.Sprintf("%s=%v", k, x))
			}
		default:
			*f = append(*f, fmt.Sprintf("%s=%v", k, v))
		}
	}
	slices.Sort(*f)
	return nil
}

// args turns the filter into the API's, refusing a term without "=".
func (f filterV) args() (filters.Args, error) {
	a := filters.NewArgs()
	for _, term := range f {
		k, v, ok := strings.Cut(term, "=")
		if !ok || k == "" {
			return a, tool.Errorf(tool.CodeInvalidArgs, "argument \"filter\": %q is not key=value; write status=running, name=web, label=app=shop, ancestor=nginx", term)
		}
		a.Add(k, v)
	}
	return a, nil
}

// filtered is the engine and the filter of a listing.
func filtered(ctx context.Context, call *tool.Call, f filterV) (*engine, filters.Args, error) {
	args, err := f.args()
	if err != nil {
		return nil, args, err
	}
	e, err := engineOf(ctx, call)
	return e, args, err
}

func filterArg(examples string) schema.Prop {
	return schema.Any("filter", "Filters as docker's --filter takes them: \"key=value\", an array of them, or an object (e.g. "+examples+")").Types("string", "array", "object")
}

func psTool() tool.Tool {
	return tool.Tool{
		Def: def("docker_ps", groupContainers, "List containers as a compact table (id, name, image, state, status, ports, health), as docker ps does; running ones unless all.", false,
			schema.Object(
				schema.Boolean("all", "Also stopped containers (docker ps -a)").Default(false),
				filterArg(`status=exited, name=web, label=app=shop, ancestor=nginx`),
			)).
			WithPhrases("which containers are up", "running containers", "what is up", "docker container ls", "is it running", "exited containers too", "container health", "exposed ports", "docker ps -a"),
		Run: tool.Typed(func(ctx context.Context, in psIn, call *tool.Call) (any, error) {
			e, f, err := filtered(ctx, call, in.Filter)
			if err != nil {
				return nil, err
			}
			list, err := e.cli.ContainerList(ctx, container.ListOptions{All: in.All, Filters: f})
			if err != nil {
				return nil, e.apiError("listing containers", err, "")
			}
			rows := make([]map[string]any, 0, len(list))
			for _, c := range list {
				rows = append(rows, psRow(c))
			}
			out := map[string]any{"containers": rows, "count": len(rows)}
			if len(rows) == 0 && !in.All {
				out["note"] = "no running container; all: true lists stopped ones too"
			}
			return out, nil
		}),
	}
}

// psRow is one container as docker ps shows it.
func psRow(c container.Summary) map[string]any {
	row := map[string]any{
		"id": shortID(c.ID), "name": objContainerName(c), "image": c.Image, "state": c.State, "status": c.Status,
		"ports": summaryPorts(c.Ports), "created": ago(time.Unix(c.Created, 0)),
	}
	if h := healthOf(c.Status); h != "" {
		row["health"] = h
	}
	if hasManagedLabel(c.Labels) {
		row["managed"] = true
	}
	return row
}

// healthOf reads the health docker puts in a status ("Up 3 minutes
// (healthy)").
func healthOf(status string) string {
	switch {
	case strings.HasSuffix(status, "(healthy)"):
		return "healthy"
	case strings.HasSuffix(status, "(unhealthy)"):
		return "unhealthy"
	case strings.HasSuffix(status, "(health: starting)"):
		return "starting"
	}
	return ""
}

// summaryPorts writes ports as docker ps does: 0.0.0.0:8080->80/tcp, 443/tcp.
func summaryPorts(ps []container.Port) string {
	seen := map[string]bool{}
	var out []string
	for _, p := range ps {
		s := fmt.Sprintf("%d/%s", p.PrivatePort, p.Type)
		if p.PublicPort != 0 {
			ip := p.IP
			if strings.Contains(ip, ":") {
				ip = "[" + ip + "]"
			}
			s = fmt.Sprintf("%s:%d->%s", ip, p.PublicPort, s)
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return strings.Join(out, ", ")
}

// --- docker_run

type runIn struct {
	Image      string            `json:"image"`
	Name       string            `json:"name"`
	Ports      []string          `json:"ports"`
	Env        envList           `json:"env"`
	Volumes    []string          `json:"volumes"`
	Detach     bool              `json:"detach"`
	Rm         bool              `json:"rm"`
	Command    words             `json:"command"`
	Entrypoint words             `json:"entrypoint"`
	Workdir    string            `json:"workdir"`
	User       string            `json:"user"`
	Labels     map[string]string `json:"labels"`
	Network    string            `json:"network"`
	Restart    string            `json:"restart"`
	Privileged bool              `json:"privileged"`
	PID        string            `json:"pid"`
	IPC        string            `json:"ipc"`
	CapAdd     []string          `json:"capAdd"`
	Devices    []string          `json:"devices"`
	MaxBytes   int               `json:"maxBytes"`
}

func runTool() tool.Tool {
	return tool.Tool{
		Def: def("docker_run", groupContainers, "Run a container, as docker run does: pulled when missing, labelled as BarrHawk's. Attached (the default) waits for it to exit and answers its exit code, stdout and stderr; detach answers once it is started. Privileged runs, host namespaces, added capabilities, the Docker socket and bind mounts outside the allowed roots are refused unless docker.allowPrivileged / docker.allowedMounts allow them.", true,
			schema.Object(
				schema.String("image", "Image to run (busybox, nginx:1.27, registry/repo@sha256:...)").Required(),
				schema.String("name", "Container name"),
				schema.Array("ports", `Published ports as docker run -p takes them: "8080:80", "127.0.0.1:8080:80/tcp", "80" (a free host port)`, schema.StringItems()),
				envArg("Environment variables"),
				schema.Array("volumes", `Mounts as docker run -v takes them: "/host/dir:/in/container[:ro]" (inside the allowed roots or docker.allowedMounts), "name:/in/container" (a named volume, made when missing), "/in/container" (anonymous)`, schema.StringItems()),
				schema.Boolean("detach", "Answer once the container is started (docker run -d) instead of waiting for it to exit").Default(false),
				schema.Boolean("rm", "Remove the container when it exits (docker run --rm)").Default(false),
				wordsArg("command", "Command and arguments, replacing the image's CMD"),
				wordsArg("entrypoint", "Entrypoint, replacing the image's"),
				schema.String("workdir", "Working directory in the container"),
				schema.String("user", "User (name, uid or uid:gid)"),
				schema.Map("labels", "Labels to add (io.barrhawk.managed is always added)"),
				schema.String("network", "Network to join (a name, bridge, none; host needs docker.allowPrivileged)"),
				schema.String("restart", "Restart policy: no, always, unless-stopped, on-failure[:N]"),
				schema.Boolean("privileged", "Privileged container (needs docker.allowPrivileged)").Default(false),
				schema.String("pid", "PID namespace (host needs docker.allowPrivileged)"),
				schema.String("ipc", "IPC namespace (host needs docker.allowPrivileged)"),
				schema.Array("capAdd", "Capabilities to add (need docker.allowPrivileged)", schema.StringItems()),
				schema.Array("devices", "Host devices to add, /dev/x[:/dev/y] (need docker.allowPrivileged)", schema.StringItems()),
				schema.Integer("maxBytes", "Bound of stdout and of stderr of an attached run (the middle is left out)").Default(defaultOutputBytes).Min(1000).Max(maxOutputBytes),
			)).
			WithPhrases("start a container", "spin up container", "spin up an image", "docker run -d", "run an image", "one-off container", "run nginx", "ephemeral container --rm", "publish port", "start it with environment variables", "spin up a container"),
		Run: tool.Typed(runContainer),
	}
}

func runContainer(ctx context.Context, in runIn, call *tool.Call) (any, error) {
	s := settings.Get()
	if err := checkRisks(runRisks{Privileged: in.Privileged, Network: in.Network, PID: in.PID, IPC: in.IPC, CapAdd: in.CapAdd, Devices: in.Devices}, s); err != nil {
		return nil, err
	}
	e, err := engineOf(ctx, call)
	if err != nil {
		return nil, err
	}
	base := rootsOf(ctx)
	var binds []string
	var named []string
	for _, v := range in.Volumes {
		m, err := parseVolume(v, firstOr(base, "."))
		if err != nil {
			return nil, err
		}
		if err := checkMount(ctx, m, s, e.at.Host); err != nil {
			return nil, err
		}
		spec := m.Target
		if m.Source != "" {
			spec = m.Source + ":" + m.Target
			if m.Options != "" {
				spec += ":" + m.Options
			}
			if !m.Bind {
				named = append(named, m.Source)
			}
		}
		binds = append(binds, spec)
	}
	exposed, bindings, err := nat.ParsePortSpecs(in.Ports)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"ports\": %v; write \"8080:80\", \"127.0.0.1:8080:80/tcp\" or \"80\"", err)
	}
	restart, err := restartPolicy(in.Restart)
	if err != nil {
		return nil, err
	}
	var devices []container.DeviceMapping
	for _, d := range in.Devices {
		host, inside, _ := strings.Cut(d, ":")
		if inside == "" {
			inside = host
		}
		devices = append(devices, container.DeviceMapping{PathOnHost: host, PathInContainer: inside, CgroupPermissions: "rwm"})
	}
	for _, v := range named {
		if err := e.ensureVolume(ctx, v); err != nil {
			return nil, err
		}
	}
	cfg := &container.Config{
		Image: in.Image, Env: in.Env, Cmd: []string(in.Command), Entrypoint: []string(in.Entrypoint), WorkingDir: in.Workdir, User: in.User,
		Labels: managedLabels(in.Labels), ExposedPorts: exposed, AttachStdout: !in.Detach, AttachStderr: !in.Detach,
	}
	hc := &container.HostConfig{
		Binds: binds, PortBindings: bindings, AutoRemove: in.Rm, NetworkMode: container.NetworkMode(in.Network), RestartPolicy: restart,
		Privileged: in.Privileged, PidMode: container.PidMode(in.PID), IpcMode: container.IpcMode(in.IPC), CapAdd: in.CapAdd,
		Resources: container.Resources{Devices: devices},
	}
	created, err := e.cli.ContainerCreate(ctx, cfg, hc, &network.NetworkingConfig{}, nil, in.Name)
	if err != nil && errdefs.IsNotFound(err) && strings.Contains(err.Error(), "image") {
		// As docker run: an image not here is pulled, then the run goes on.
		if _, perr := e.pull(ctx, in.Image, ""); perr != nil {
			te := tool.AsError(perr)
			return nil, tool.Errorf(te.Code, "image %s is not on the daemon (docker_images lists those that are), and %s", in.Image, te.Message)
		}
		created, err = e.cli.ContainerCreate(ctx, cfg, hc, &network.NetworkingConfig{}, nil, in.Name)
	}
	if err != nil {
		return nil, e.apiError("creating the container of "+in.Image, err, "")
	}
	id := created.ID
	out := map[string]any{"id": shortID(id), "image": in.Image}
	if len(created.Warnings) > 0 {
		out["warnings"] = created.Warnings
	}
	if in.Detach {
		if err := e.cli.ContainerStart(ctx, id, container.StartOptions{}); err != nil {
			e.removeQuietly(id)
			return nil, e.apiError("starting the container", err, "")
		}
		return e.describeStarted(ctx, id, out)
	}
	return e.runAttached(ctx, id, in, out)
}

// firstOr is a's first element, or def.
func firstOr(a []string, def string) string {
	if len(a) > 0 {
		return a[0]
	}
	return def
}

// restartPolicy reads --restart's value.
func restartPolicy(s string) (container.RestartPolicy, error) {
	if s == "" {
		return container.RestartPolicy{}, nil
	}
	name, count, _ := strings.Cut(s, ":")
	p := container.RestartPolicy{Name: container.RestartPolicyMode(name)}
	switch p.Name {
	case container.RestartPolicyDisabled, container.RestartPolicyAlways, container.RestartPolicyUnlessStopped:
		if count != "" {
			return p, tool.Errorf(tool.CodeInvalidArgs, "argument \"restart\": only on-failure takes a count (on-failure:3), not %q", s)
		}
	case container.RestartPolicyOnFailure:
		if count != "" {
			n, err := strconv.Atoi(count)
			if err != nil || n < 0 {
				return p, tool.Errorf(tool.CodeInvalidArgs, "argument \"restart\": %q: the count after on-failure: is a whole number", s)
			}
			p.MaximumRetryCount = n
		}
	default:
		return p, tool.Errorf(tool.CodeInvalidArgs, "argument \"restart\": %q is not a policy; use no, always, unless-stopped or on-failure[:N]", s)
	}
	return p, nil
}

// ensureVolume makes a named volume BarrHawk's when it does not exist yet
// (docker would make it unlabelled).
func (e *engine) ensureVolume(ctx context.Context, name string) error {
	if _, err := e.cli.VolumeInspect(ctx, name); err == nil {
		return nil
	}
	_, err := e.cli.VolumeCreate(ctx, volume.CreateOptions{Name: name, Labels: managedLabels(nil)})
	return e.apiError("creating volume "+name, err, "")
}

// removeQuietly removes a container this call made and could not start.
func (e *engine) removeQuietly(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = e.cli.ContainerRemove(ctx, id, container.RemoveOptions{Force: true, RemoveVolumes: true}) // best effort; the error the caller sees is the start's
}

// describeStarted answers a detached run: name, state and the published
// ports as the daemon bound them.
func (e *engine) describeStarted(ctx context.Context, id string, out map[string]any) (any, error) {
	info, err := e.cli.ContainerInspect(ctx, id)
	if err != nil {
		return nil, e.apiError("inspecting the container started", err, listHint)
	}
	out["name"] = strings.TrimPrefix(info.Name, "/")
	if info.State != nil {
		out["state"] = info.State.Status
		if !info.State.Running && info.State.Status == "exited" {
			out["exitCode"] = info.State.ExitCode
			out["note"] = "the container already exited; docker_logs shows what it wrote"
		}
	}
	if ports := inspectPorts(info.NetworkSettings); ports != "" {
		out["ports"] = ports
	}
	return out, nil
}

// inspectPorts writes an inspected container's published ports.
func inspectPorts(ns *container.NetworkSettings) string {
	if ns == nil {
		return ""
	}
	var ps []container.Port
	for p, bs := range ns.Ports {
		port := container.Port{PrivatePort: uint16(p.Int()), Type: p.Proto()}
		if len(bs) == 0 {
			ps = append(ps, port)
		}
		for _, b := range bs {
			n, _ := strconv.Atoi(b.HostPort)
			q := port
			q.IP, q.PublicPort = b.HostIP, uint16(n)
			if q.IP == "" {
				q.IP = "0.0.0.0"
			}
			ps = append(ps, q)
		}
	}
	slices.SortFunc(ps, func(a, b container.Port) int {
		if a.PrivatePort != b.PrivatePort {
			return int(a.PrivatePort) - int(b.PrivatePort)
		}
		return strings.Compare(a.IP, b.IP)
	})
	return summaryPorts(ps)
}

// runAttached starts the container with its output attached and waits for
// it to exit within the call; a container still running when the call's
// time is nearly out is left running and the answer says so.
func (e *engine) runAttached(ctx context.Context, id string, in runIn, out map[string]any) (any, error) {
	att, err := e.cli.ContainerAttach(ctx, id, container.AttachOptions{Stream: true, Stdout: true, Stderr: true})
	if err != nil {
		e.removeQuietly(id)
		return nil, e.apiError("attaching to the container", err, "")
	}
	defer att.Close()
	cond := container.WaitConditionNextExit
	waitC, errC := e.cli.ContainerWait(ctx, id, cond)
	if err := e.cli.ContainerStart(ctx, id, container.StartOptions{}); err != nil {
		e.removeQuietly(id)
		return nil, e.apiError("starting the container", err, "")
	}
	limit := boundOf(in.MaxBytes)
	stdout, stderr := lines.NewCapture(limit/4, limit-limit/4), lines.NewCapture(limit/4, limit-limit/4)
	copied := make(chan error, 1)
	go func() { copied <- copyOutput(att.Reader, false, stdout, stderr) }()
	d, _ := tool.WithinCall(ctx, 24*time.Hour)
	timer := time.NewTimer(d)
	defer timer.Stop()
	var code int64
	select {
	case w := <-waitC:
		code = w.StatusCode
		if w.Error != nil && w.Error.Message != "" {
			out["waitError"] = w.Error.Message
		}
	case err := <-errC:
		return nil, e.apiError("waiting for the container", err, "")
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		out["running"] = true
		out["note"] = fmt.Sprintf("still running when the call's time ran out; it goes on: docker_logs {container: %q} reads it, docker_stop stops it (or pass detach: true, or a longer timeout)", shortID(id))
		out["stdout"], out["stderr"] = stdout.String(), stderr.String()
		return out, nil
	}
	// The output ends when the container's streams close, just after exit.
	select {
	case <-copied:
	case <-time.After(2 * time.Second):
	}
	out["exitCode"] = code
	out["stdout"], out["stderr"] = stdout.String(), stderr.String()
	if in.Rm {
		out["removed"] = true
	}
	return out, nil
}

// boundOf is a maxBytes argument or the default.
func boundOf(n int) int {
	if n <= 0 {
		return defaultOutputBytes
	}
	return min(n, maxOutputBytes)
}

// copyOutput copies a container's or an exec's output to stdout and
// stderr: multiplexed (the Engine API's frames, stdcopy) unless it has a
// TTY, whose one stream goes to stdout.
func copyOutput(r io.Reader, tty bool, stdout, stderr io.Writer) error {
	if tty {
		_, err := io.Copy(stdout, r)
		return err
	}
	_, err := stdcopy.StdCopy(stdout, stderr, r)
	return err
}

// --- docker_stop, docker_rm

type stopIn struct {
	Container string `json:"container"`
	Timeout   *int   `json:"timeout"`
}

func containerArg() schema.Prop {
	return schema.String("container", "Container name or id (a unique prefix of the id will do)").Required()
}

func stopTool() tool.Tool {
	return tool.Tool{
		Def: def("docker_stop", groupContainers, "Stop a container: SIGTERM (or its stop signal), then SIGKILL after timeout seconds, as docker stop does.", true,
			schema.Object(containerArg(), schema.Integer("timeout", "Seconds to wait after the stop signal before killing (default: the container's own, 10)").Min(0).Max(3600))).
			WithPhrases("halt container", "stop running container", "stop a container by name", "sigterm container", "shut down container", "docker kill", "graceful stop"),
		Run: tool.Typed(func(ctx context.Context, in stopIn, call *tool.Call) (any, error) {
			e, err := engineOf(ctx, call)
			if err != nil {
				return nil, err
			}
			if err := e.cli.ContainerStop(ctx, in.Container, container.StopOptions{Timeout: in.Timeout}); err != nil {
				return nil, e.apiError("stopping container "+in.Container, err, listHint)
			}
			out := map[string]any{"container": in.Container, "stopped": true}
			if info, err := e.cli.ContainerInspect(ctx, in.Container); err == nil && info.State != nil {
				out["state"], out["exitCode"] = info.State.Status, info.State.ExitCode
			} else if errdefs.IsNotFound(err) {
				out["removed"] = true // it was started with rm
			}
			return out, nil
		}),
	}
}

type rmIn struct {
	Container string `json:"container"`
	Force     bool   `json:"force"`
	Volumes   bool   `json:"volumes"`
}

func rmTool() tool.Tool {
	return tool.Tool{
		Def: def("docker_rm", groupContainers, "Remove a container, as docker rm does; a running one needs force.", true,
			schema.Object(containerArg(),
				schema.Boolean("force", "Kill and remove a running container (docker rm -f)").Default(false),
				schema.Boolean("volumes", "Also remove its anonymous volumes (docker rm -v)").Default(false))).
			WithPhrases("delete container", "remove a container", "docker rm -f", "remove stopped container", "delete an exited container", "force remove container", "destroy container", "get rid of container"),
		Run: tool.Typed(func(ctx context.Context, in rmIn, call *tool.Call) (any, error) {
			e, err := engineOf(ctx, call)
			if err != nil {
				return nil, err
			}
			err = e.cli.ContainerRemove(ctx, in.Container, container.RemoveOptions{Force: in.Force, RemoveVolumes: in.Volumes})
			if err != nil && errdefs.IsConflict(err) && !in.Force {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "container %s is running: docker_stop it first, or pass force: true to kill and remove it (%s)", in.Container, shortErr(err))
			}
			if err != nil {
				return nil, e.apiError("removing container "+in.Container, err, listHint)
			}
			return map[string]any{"container": in.Container, "removed": true}, nil
		}),
	}
}

// --- docker_logs

type logsIn struct {
	Container  string `json:"container"`
	Tail       any    `json:"tail"`
	Since      string `json:"since"`
	Until      string `json:"until"`
	Timestamps bool   `json:"timestamps"`
	MaxBytes   int    `json:"maxBytes"`
}

func logsTool() tool.Tool {
	return tool.Tool{
		Def: def("docker_logs", groupContainers, "A container's logs (stdout and stderr, in order), as docker logs does, bounded: past maxBytes the oldest part is left out with a note.", false,
			schema.Object(containerArg(),
				schema.Any("tail", `Lines from the end: a number, or "all" (the default)`).Types("integer", "string"),
				schema.String("since", `Only logs since then: a duration (10m, 1h30m) or a timestamp (2026-11-26T10:00:00Z)`),
				schema.String("until", `Only logs before then: a duration or a timestamp`),
				schema.Boolean("timestamps", "Prefix each line with its timestamp").Default(false),
				schema.Integer("maxBytes", "Bound of the text answered").Default(defaultOutputBytes).Min(1000).Max(maxOutputBytes))).
			WithPhrases("one container's logs", "container output", "why did container crash", "docker logs --tail", "container stdout stderr", "tail container logs", "container error output", "what did it print", "output before it exited"),
		Run: tool.Typed(func(ctx context.Context, in logsIn, call *tool.Call) (any, error) {
			tail, err := tailArg(in.Tail)
			if err != nil {
				return nil, err
			}
			e, err := engineOf(ctx, call)
			if err != nil {
				return nil, err
			}
			text, cut, err := e.logs(ctx, in.Container, container.LogsOptions{
				ShowStdout: true, ShowStderr: true, Tail: tail, Since: in.Since, Until: in.Until, Timestamps: in.Timestamps,
			}, boundOf(in.MaxBytes))
			if err != nil {
				return nil, err
			}
			out := map[string]any{"container": in.Container, "logs": text, "lines": strings.Count(text, "\n")}
			if cut > 0 {
				out["cut"] = fmt.Sprintf("the oldest %d bytes were left out; pass tail or since for less, or maxBytes for more", cut)
			}
			return out, nil
		}),
	}
}

// tailArg reads tail: a whole number or "all".
func tailArg(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "all", nil
	case float64:
		if v < 0 || v != float64(int64(v)) {
			return "", tool.Errorf(tool.CodeInvalidArgs, "argument \"tail\": %v is not a number of lines; use a whole number from 0, or \"all\"", v)
		}
		return strconv.FormatInt(int64(v), 10), nil
	case string:
		if v == "all" || v == "" {
			return "all", nil
		}
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			return v, nil
		}
	}
	return "", tool.Errorf(tool.CodeInvalidArgs, "argument \"tail\": %v is not a number of lines; use a whole number from 0, or \"all\"", v)
}

// logs reads the logs of container id in order, keeping the last limit
// bytes, and says how many were left out.
func (e *engine) logs(ctx context.Context, id string, opts container.LogsOptions, limit int) (string, int64, error) {
	info, err := e.cli.ContainerInspect(ctx, id)
	if err != nil {
		return "", 0, e.apiError("container "+id, err, listHint)
	}
	return e.logsOf(ctx, info, opts, limit)
}

// logsOf reads an inspected container's logs, stdout and stderr together
// in the order written, keeping the last limit bytes; it says how many it
// left out. A container removed meanwhile has none.
func (e *engine) logsOf(ctx context.Context, info container.InspectResponse, opts container.LogsOptions, limit int) (string, int64, error) {
	name := strings.TrimPrefix(info.Name, "/")
	rc, err := e.cli.ContainerLogs(ctx, info.ID, opts)
	if err != nil {
		if errdefs.IsNotFound(err) {
			return "", 0, nil
		}
		return "", 0, e.apiError("reading the logs of "+name, err, listHint)
	}
	defer rc.Close()
	c := lines.NewCapture(0, limit)
	err = copyOutput(rc, info.Config != nil && info.Config.Tty, c, c)
	if ctx.Err() != nil {
		return "", 0, ctx.Err()
	}
	if err != nil {
		return "", 0, tool.Errorf(tool.CodeToolError, "reading the logs of %s: %v", name, err)
	}
	return c.String(), c.Dropped(), nil
}
