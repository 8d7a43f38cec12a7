package docker

import (
	"context"
	"fmt"
	"time"

	"github.com/barrhawk/barrhawk/internal/lines"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/errdefs"
)

type execIn struct {
	Container  string  `json:"container"`
	Command    words   `json:"command"`
	User       string  `json:"user"`
	Workdir    string  `json:"workdir"`
	Env        envList `json:"env"`
	Privileged bool    `json:"privileged"`
	MaxBytes   int     `json:"maxBytes"`
}

func execTool() tool.Tool {
	return tool.Tool{
		Def: def("docker_exec", groupContainers, "Run a command in a running container, as docker exec does, and answer its exit code, stdout and stderr apart. The call's timeout bounds it: a command still running then is killed, not left behind.", true,
			schema.Object(containerArg(),
				wordsArg("command", "Command and arguments").Required(),
				schema.String("user", "User (name, uid or uid:gid)"),
				schema.String("workdir", "Working directory in the container"),
				envArg("Environment variables added for the command"),
				schema.Boolean("privileged", "Extended privileges for the command (needs docker.allowPrivileged)").Default(false),
				schema.Integer("maxBytes", "Bound of stdout and of stderr (the middle is left out)").Default(defaultOutputBytes).Min(1000).Max(maxOutputBytes))).
			WithPhrases("shell into container", "run command inside container", "shell command in container", "docker exec -it", "exec into container", "sh -c in container", "look inside container", "run a command in a container", "ls inside a container"),
		Run: tool.Typed(execCommand),
	}
}

func execCommand(ctx context.Context, in execIn, call *tool.Call) (any, error) {
	if len(in.Command) == 0 {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"command\": empty; give the command, such as [\"ls\",\"-l\",\"/\"] or \"ls -l /\"")
	}
	if err := checkRisks(runRisks{Privileged: in.Privileged}, settings.Get()); err != nil {
		return nil, err
	}
	e, err := engineOf(ctx, call)
	if err != nil {
		return nil, err
	}
	info, err := e.cli.ContainerInspect(ctx, in.Container)
	if err != nil {
		return nil, e.apiError("container "+in.Container, err, listHint)
	}
	if info.State == nil || !info.State.Running {
		state := "not running"
		if info.State != nil {
			state = info.State.Status
		}
		return nil, tool.Errorf(tool.CodeInvalidArgs, "container %s is %s; exec needs a running container (docker_run or compose_up starts one)", in.Container, state)
	}
	created, err := e.cli.ContainerExecCreate(ctx, info.ID, container.ExecOptions{
		Cmd: in.Command, User: in.User, WorkingDir: in.Workdir, Env: in.Env, Privileged: in.Privileged,
		AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return nil, e.apiError("exec in "+in.Container, err, listHint)
	}
	// Known before it can outlive this call: the next Igor kills it if
	// this one dies first (execs.go).
	tracked := e.recordExec(info.ID, created.ID)
	defer tracked.done()
	att, err := e.cli.ContainerExecAttach(ctx, created.ID, container.ExecAttachOptions{})
	if err != nil {
		return nil, e.apiError("exec in "+in.Container, err, listHint)
	}
	defer att.Close()
	e.locate(ctx, tracked)

	limit := boundOf(in.MaxBytes)
	stdout, stderr := lines.NewCapture(limit/4, limit-limit/4), lines.NewCapture(limit/4, limit-limit/4)
	copied := make(chan error, 1)
	go func() { copied <- copyOutput(att.Reader, info.Config != nil && info.Config.Tty, stdout, stderr) }()
	started := time.Now()
	d, _ := tool.WithinCall(ctx, 24*time.Hour)
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case err := <-copied:
		if err != nil && ctx.Err() == nil {
			return nil, tool.Errorf(tool.CodeToolError, "exec in %s: reading its output: %v", in.Container, err)
		}
	case <-ctx.Done():
		// Cancelled (the client's cancel, the Igor shutting down): the
		// command goes with the call.
		tracked.kill()
		return nil, ctx.Err()
	case <-timer.C:
		killed := tracked.kill()
		return map[string]any{
			"container": in.Container, "timedOut": true, "killed": killed, "stdout": stdout.String(), "stderr": stderr.String(),
			"note": fmt.Sprintf("the command ran past the call's time (%s) and was %s; give the call a longer timeout", time.Since(started).Round(time.Millisecond), map[bool]string{true: "killed", false: "left running: its process could not be reached from here (a remote daemon)"}[killed]),
		}, nil
	}
	// The output ends when the command does; its exit code follows.
	var code int
	for range 50 {
		ins, err := e.cli.ContainerExecInspect(ctx, created.ID)
		if err != nil {
			if errdefs.IsNotFound(err) {
				break
			}
			return nil, e.apiError("exec in "+in.Container, err, "")
		}
		if !ins.Running {
			code = ins.ExitCode
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return map[string]any{
		"container": in.Container, "exitCode": code, "stdout": stdout.String(), "stderr": stderr.String(),
		"durationMs": time.Since(started).Milliseconds(),
	}, nil
}
