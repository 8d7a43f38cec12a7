// Package docker holds the Docker and Compose tools (docker_*, compose_*).
// They speak to the Docker Engine API with Docker's own Go client, found as
// the docker CLI finds its daemon (host.go): docker.host, DOCKER_HOST, the
// current context, then /var/run/docker.sock. Compose goes through the real
// Compose (compose.go): `docker compose` or `docker-compose` on PATH.
//
// The client lives in the Igor's Resources and is closed with it; what a
// call attaches to (an exec, a log stream, a build, a pull) ends with the
// call, and an exec a call started and left behind (its timeout, its
// cancellation, its Igor killed) is killed by the next Igor (execs.go).
//
// Safety (policy.go): what BarrHawk creates carries the label
// io.barrhawk.managed (images it builds io.barrhawk.built); docker_cleanup
// removes only that unless told otherwise; docker_run refuses privileged containers, host namespaces,
// added capabilities, the Docker socket and bind mounts outside the allowed
// roots unless the configuration allows them.
package docker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/docker/docker/client"
	"github.com/docker/docker/errdefs"
	"github.com/google/jsonschema-go/jsonschema"
)

// Tools returns the family: containers, images, compose, networks and
// volumes, cleanup.
func Tools() []tool.Tool {
	var ts []tool.Tool
	ts = append(ts, containerTools()...)
	ts = append(ts, imageTools()...)
	ts = append(ts, composeTools()...)
	return append(ts, objectTools()...)
}

// Label marks the containers, networks and volumes BarrHawk creates, and
// BuiltLabel the images it builds (a label of its own: a container takes
// its image's labels, so one the user starts from such an image would
// otherwise count as ours); docker_cleanup removes only what carries them
// unless told all.
const (
	Label      = "io.barrhawk.managed"
	BuiltLabel = "io.barrhawk.built"
	labelValue = "true"
)

// Settings are the docker.* configuration keys, set once per Igor.
type Settings struct {
	// Host is the daemon to use ("" finds it as the docker CLI does).
	Host string
	// AllowPrivileged lets docker_run start privileged containers, with
	// the host's network or pid namespace, added capabilities or the
	// Docker socket mounted.
	AllowPrivileged bool
	// AllowedMounts are directories bind mounts may come from besides the
	// call's allowed roots.
	AllowedMounts []string
	// Compose is the compose command ("docker compose", "docker-compose");
	// "" takes the first that answers.
	Compose string
}

var settings tool.Setting[Settings]

// Configure sets the family's settings (the Igor calls it at init).
func Configure(s Settings) { settings.Set(s) }

// Groups of the family in tool_search and the README.
const (
	groupContainers = "Docker containers"
	groupImages     = "Docker images"
	groupCompose    = "Docker Compose"
	groupObjects    = "Docker networks and volumes"
)

// def fills the fields every Docker tool shares.
func def(name, group, desc string, sideEffects bool, input *jsonschema.Schema) tool.Def {
	// Every Docker tool is sent the allowed roots: bind mounts, build
	// contexts and compose files are host paths.
	d := tool.Def{Name: name, Description: desc, Group: group, Category: tool.CategoryDocker, Input: input, RequiresWorker: true, UsesRoots: true}
	if sideEffects {
		d.Retries = -1
	}
	return d
}

// engine is a client of one daemon and how the daemon was found.
type engine struct {
	cli *client.Client
	at  endpoint

	mu     sync.Mutex
	active map[*trackedExec]struct{} // execs running in calls (execs.go)
}

// close kills the execs still running and closes the client.
func (e *engine) close() error {
	e.killActive()
	return e.cli.Close()
}

// pingTimeout bounds reaching the daemon the first time.
const pingTimeout = 5 * time.Second

// engineOf returns the Igor's client of the daemon, made and pinged on
// first use; a daemon that does not answer is one clear error saying how to
// start one.
func engineOf(ctx context.Context, call *tool.Call) (*engine, error) {
	open := func() (any, func() error, error) {
		at, err := findDaemon(settings.Get().Host)
		if err != nil {
			return nil, nil, err
		}
		cli, err := at.client()
		if err != nil {
			return nil, nil, tool.Errorf(tool.CodeConnectionFailed, "Docker daemon %s (%s): %v", at.Host, at.From, err)
		}
		pctx, cancel := context.WithTimeout(ctx, pingTimeout)
		defer cancel()
		if _, err := cli.Ping(pctx); err != nil {
			_ = cli.Close()
			return nil, nil, noDaemon(at, err)
		}
		e := &engine{cli: cli, at: at, active: map[*trackedExec]struct{}{}}
		return e, e.close, nil
	}
	if err := call.NeedResources("Docker tools"); err != nil {
		return nil, err
	}
	v, err := call.Resources.GetOrCreate(tool.KindDocker, "default", open)
	if err != nil {
		return nil, err
	}
	return v.(*engine), nil
}

// noDaemon is the error of a daemon that does not answer: where we looked,
// why it failed, and how to start one or point at one.
func noDaemon(at endpoint, err error) error {
	return tool.Errorf(tool.CodeConnectionFailed,
		"no Docker daemon answers at %s (%s): %s; start one (systemctl start docker, or dockerd as root; Debian's package is docker.io), or point DOCKER_HOST, a docker context or the docker.host setting at one that runs",
		at.Host, at.From, shortErr(err))
}

// shortErr is an error's message on one line without the client's
// repetitions.
func shortErr(err error) string {
	msg := strings.TrimSpace(err.Error())
	msg = strings.ReplaceAll(msg, "\n", "; ")
	return tool.CutText(msg, 600)
}

// apiError turns an Engine API error into ours: a missing object is
// NOT_FOUND saying what lists the ones that exist, a conflict or bad
// parameter INVALID_ARGS, a daemon gone CONNECTION_FAILED, and the
// call's own timeout or cancellation left as they are.
func (e *engine) apiError(what string, err error, list string) error {
	if err == nil {
		return nil
	}
	var te *tool.Error
	if errors.As(err, &te) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	msg := shortErr(err)
	switch {
	case errdefs.IsNotFound(err):
		hint := ""
		if list != "" {
			hint = "; " + list + " lists what there is"
		}
		return tool.Errorf(tool.CodeNotFound, "%s: %s%s", what, msg, hint)
	case errdefs.IsInvalidParameter(err), errdefs.IsConflict(err):
		return tool.Errorf(tool.CodeInvalidArgs, "%s: %s", what, msg)
	case errdefs.IsForbidden(err), errdefs.IsUnauthorized(err):
		return tool.Errorf(tool.CodeForbidden, "%s: %s", what, msg)
	case client.IsErrConnectionFailed(err):
		return noDaemon(e.at, err)
	}
	return tool.Errorf(tool.CodeToolError, "%s: %s", what, msg)
}

// shortID is the 12-character form the docker CLI shows.
func shortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// managedLabels are the labels of what BarrHawk creates, with the user's.
func managedLabels(user map[string]string) map[string]string {
	return withLabel(user, Label)
}

// withLabel is the user's labels and key=true.
func withLabel(user map[string]string, key string) map[string]string {
	out := make(map[string]string, len(user)+1)
	for k, v := range user {
		out[k] = v
	}
	out[key] = labelValue
	return out
}

// ago says how long ago t was, as docker ps does ("3 minutes ago").
func ago(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := time.Since(t).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d seconds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d minutes ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d hours ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}
