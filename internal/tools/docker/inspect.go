package docker

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"text/template"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/docker/docker/errdefs"
)

type inspectIn struct {
	Target string `json:"target"`
	Type   string `json:"type"`
	Format string `json:"format"`
	Full   bool   `json:"full"`
}

func inspectTool() tool.Tool {
	return tool.Tool{
		Def: def("docker_inspect", groupContainers, "Inspect a container, image, network or volume: what matters of it (state, exit code, health, image, command, env, ports, mounts, networks, labels), or the Engine's whole answer with full, or one value with a Go template as docker inspect --format takes it.", false,
			schema.Object(
				schema.String("target", "Name or id of a container, image, network or volume").Required(),
				schema.String("type", "What target is; by default a container, then an image, a network, a volume").EnumStrings("container", "image", "network", "volume"),
				schema.String("format", `A Go template over the Engine's answer, as docker inspect -f: "{{.State.Status}}", "{{json .Config.Env}}", "{{range .Mounts}}{{.Source}} {{end}}"`),
				schema.Boolean("full", "The Engine's whole answer instead of what matters").Default(false))).
			WithPhrases("container details", "exit code of container", "container exit status", "container env vars", "container ip address", "health check status", "mount points", "go template on container", "image metadata"),
		Run: tool.Typed(func(ctx context.Context, in inspectIn, call *tool.Call) (any, error) {
			var tmpl *template.Template
			if in.Format != "" {
				var err error
				tmpl, err = template.New("format").Option("missingkey=error").Funcs(template.FuncMap{
					"json":  func(v any) (string, error) { b, err := json.Marshal(v); return string(b), err },
					"join":  strings.Join,
					"lower": strings.ToLower,
					"upper": strings.ToUpper,
				}).Parse(in.Format)
				if err != nil {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"format\": %v; write a Go template such as {{.State.Status}}", err)
				}
			}
			e, err := engineOf(ctx, call)
			if err != nil {
				return nil, err
			}
			kind, raw, trimmed, err := e.inspect(ctx, in.Target, in.Type)
			if err != nil {
				return nil, err
			}
			if tmpl != nil {
				var v any
				if err := json.Unmarshal(raw, &v); err != nil {
					return nil, tool.Errorf(tool.CodeInternal, "decoding the %s: %v", kind, err)
				}
				var b bytes.Buffer
				if err := tmpl.Execute(&b, v); err != nil {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"format\": %v (the %s's fields are as full: true shows them)", err, kind)
				}
				return map[string]any{"type": kind, "target": in.Target, "value": b.String()}, nil
			}
			if in.Full {
				return map[string]any{"type": kind, "target": in.Target, "inspect": json.RawMessage(raw)}, nil
			}
			trimmed["type"] = kind
			return trimmed, nil
		}),
	}
}

// inspect finds target as kind (or, without one, as a container, an image,
// a network then a volume) and answers its raw JSON and what matters of it.
func (e *engine) inspect(ctx context.Context, target, kind string) (string, []byte, map[string]any, error) {
	kinds := []string{"container", "image", "network", "volume"}
	if kind != "" {
		kinds = []string{kind}
	}
	for _, k := range kinds {
		raw, trimmed, err := e.inspectAs(ctx, target, k)
		if err == nil {
			return k, raw, trimmed, nil
		}
		if !errdefs.IsNotFound(err) {
			return k, nil, nil, e.apiError("inspecting "+k+" "+target, err, "")
		}
	}
	if kind != "" {
		return kind, nil, nil, tool.Errorf(tool.CodeNotFound, "no %s %q; docker_ps {all: true}, docker_images, docker_networks and docker_volumes list what there is", kind, target)
	}
	return "", nil, nil, tool.Errorf(tool.CodeNotFound, "no container, image, network or volume %q; docker_ps {all: true}, docker_images, docker_networks {action: list} and docker_volumes {action: list} list what there is", target)
}

func (e *engine) inspectAs(ctx context.Context, target, kind string) ([]byte, map[string]any, error) {
	switch kind {
	case "container":
		c, raw, err := e.cli.ContainerInspectWithRaw(ctx, target, false)
		if err != nil {
			return nil, nil, err
		}
		return raw, trimContainer(c), nil
	case "image":
		var buf bytes.Buffer
		img, err := e.cli.ImageInspect(ctx, target, client.ImageInspectWithRawResponse(&buf))
		if err != nil {
			return nil, nil, err
		}
		return buf.Bytes(), trimImage(img), nil
	case "network":
		n, raw, err := e.cli.NetworkInspectWithRaw(ctx, target, network.InspectOptions{})
		if err != nil {
			return nil, nil, err
		}
		return raw, netInfo(n), nil
	default:
		v, raw, err := e.cli.VolumeInspectWithRaw(ctx, target)
		if err != nil {
			return nil, nil, err
		}
		return raw, volInfo(ctx, e, v), nil
	}
}

// secretKey is an environment variable whose value the trimmed view masks.
var secretKey = regexp.MustCompile(`(?i)(pass|secret|token|key|credential|auth|private)`)

// maskEnv masks the values of variables that look secret.
func maskEnv(env []string) []string {
	out := make([]string, len(env))
	for i, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if ok && v != "" && secretKey.MatchString(k) {
			kv = k + "=***"
		}
		out[i] = kv
	}
	return out
}

// trimContainer is what matters of an inspected container.
func trimContainer(c container.InspectResponse) map[string]any {
	out := map[string]any{"id": shortID(c.ID), "name": strings.TrimPrefix(c.Name, "/"), "created": c.Created, "restartCount": c.RestartCount}
	if c.State != nil {
		st := map[string]any{"status": c.State.Status, "running": c.State.Running, "exitCode": c.State.ExitCode, "startedAt": c.State.StartedAt, "pid": c.State.Pid}
		if !c.State.Running && c.State.FinishedAt != "" && !strings.HasPrefix(c.State.FinishedAt, "0001") {
			st["finishedAt"] = c.State.FinishedAt
		}
		if c.State.OOMKilled {
			st["oomKilled"] = true
		}
		if c.State.Error != "" {
			st["error"] = c.State.Error
		}
		if h := c.State.Health; h != nil {
			health := map[string]any{"status": h.Status, "failingStreak": h.FailingStreak}
			if n := len(h.Log); n > 0 {
				last := h.Log[n-1]
				health["last"] = map[string]any{"exitCode": last.ExitCode, "output": tool.CutText(strings.TrimSpace(last.Output), 500)}
			}
			st["health"] = health
		}
		out["state"] = st
	}
	if cfg := c.Config; cfg != nil {
		out["image"] = cfg.Image
		out["cmd"], out["entrypoint"], out["env"] = cfg.Cmd, cfg.Entrypoint, maskEnv(cfg.Env)
		out["workdir"], out["user"], out["labels"] = cfg.WorkingDir, cfg.User, cfg.Labels
	}
	out["imageId"] = shortID(c.Image)
	if ports := inspectPorts(c.NetworkSettings); ports != "" {
		out["ports"] = ports
	}
	var mounts []map[string]any
	for _, m := range c.Mounts {
		mm := map[string]any{"type": m.Type, "source": m.Source, "destination": m.Destination, "rw": m.RW}
		if m.Name != "" {
			mm["name"] = m.Name
		}
		mounts = append(mounts, mm)
	}
	if len(mounts) > 0 {
		out["mounts"] = mounts
	}
	if c.NetworkSettings != nil {
		nets := map[string]any{}
		for name, n := range c.NetworkSettings.Networks {
			if n != nil {
				nets[name] = map[string]any{"ip": n.IPAddress, "gateway": n.Gateway, "aliases": n.Aliases}
			}
		}
		if len(nets) > 0 {
			out["networks"] = nets
		}
	}
	if hc := c.HostConfig; hc != nil {
		h := map[string]any{"networkMode": hc.NetworkMode, "restart": hc.RestartPolicy.Name, "autoRemove": hc.AutoRemove}
		if hc.Privileged {
			h["privileged"] = true
		}
		out["host"] = h
	}
	return out
}

// trimImage is what matters of an inspected image.
func trimImage(img image.InspectResponse) map[string]any {
	out := map[string]any{"id": shortID(img.ID), "tags": img.RepoTags, "created": img.Created, "size": img.Size, "os": img.Os, "architecture": img.Architecture}
	if len(img.RepoDigests) > 0 {
		out["digests"] = img.RepoDigests
	}
	if cfg := img.Config; cfg != nil {
		out["cmd"], out["entrypoint"], out["env"], out["workdir"], out["user"] = cfg.Cmd, cfg.Entrypoint, maskEnv(cfg.Env), cfg.WorkingDir, cfg.User
		var ports []string
		for p := range cfg.ExposedPorts {
			ports = append(ports, p)
		}
		if len(ports) > 0 {
			out["exposedPorts"] = ports
		}
		if len(cfg.Labels) > 0 {
			out["labels"] = cfg.Labels
		}
	}
	out["layers"] = len(img.RootFS.Layers)
	return out
}
