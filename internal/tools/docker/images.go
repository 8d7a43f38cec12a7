package docker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/pkg/jsonmessage"
	"github.com/docker/go-units"
	"github.com/moby/go-archive"
	"github.com/moby/patternmatcher/ignorefile"
)

func imageTools() []tool.Tool {
	return []tool.Tool{buildTool(), imagesTool(), pullTool()}
}

// stepLines is how many of a build's last lines a failure shows.
const stepLines = 20

type buildIn struct {
	Path       string             `json:"path"`
	Tag        any                `json:"tag"`
	Dockerfile string             `json:"dockerfile"`
	BuildArgs  map[string]*string `json:"buildArgs"`
	NoCache    bool               `json:"noCache"`
	Target     string             `json:"target"`
	Labels     map[string]string  `json:"labels"`
	Pull       bool               `json:"pull"`
	Platform   string             `json:"platform"`
}

func buildTool() tool.Tool {
	return tool.Tool{
		Def: def("docker_build", groupImages, "Build an image from a directory with a Dockerfile, as docker build does (.dockerignore honoured); each line of the build is sent as progress, and a failed step answers with its error and the step's last lines. The image is labelled io.barrhawk.built (docker_cleanup removes it).", true,
			schema.Object(
				schema.String("path", "Build context: a directory inside the allowed roots (or docker.allowedMounts)").Required(),
				schema.Any("tag", `Name and tag, "app:1.0", or several: ["app:1.0","app:latest"]`).Types("string", "array"),
				schema.String("dockerfile", "Dockerfile, relative to path (default Dockerfile)"),
				schema.Map("buildArgs", "Build arguments (ARG), name → value"),
				schema.Boolean("noCache", "Do not use the cache").Default(false),
				schema.String("target", "Stage to build, in a multi-stage Dockerfile"),
				schema.Map("labels", "Labels to add (io.barrhawk.built is always added)"),
				schema.Boolean("pull", "Always pull newer base images").Default(false),
				schema.String("platform", "Platform, such as linux/amd64"))).
			WithPhrases("build image", "build dockerfile", "docker build -t", "multi-stage build", "build arg", "containerize app", "image from source", "create image from a directory", "build the current directory"),
		Run: tool.Typed(buildImage),
	}
}

// tagsOf reads tag: one string or an array of them.
func tagsOf(v any) ([]string, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		if v == "" {
			return nil, nil
		}
		return []string{v}, nil
	case []any:
		var out []string
		for _, x := range v {
			s, ok := x.(string)
			if !ok || s == "" {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"tag\": each tag is a non-empty string such as \"app:1.0\"")
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"tag\": a string (\"app:1.0\") or an array of them")
}

func buildImage(ctx context.Context, in buildIn, call *tool.Call) (any, error) {
	tags, err := tagsOf(in.Tag)
	if err != nil {
		return nil, err
	}
	s := settings.Get()
	dir := in.Path
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(firstOr(rootsOf(ctx), "."), dir)
	}
	dir = filepath.Clean(dir)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"path\": %s is not a directory; give the build context, the directory holding the Dockerfile", dir)
	}
	if err := checkAllowed(ctx, "path", dir, s, "the build context"); err != nil {
		return nil, err
	}
	dockerfile := in.Dockerfile
	if dockerfile == "" {
		dockerfile = "Dockerfile"
	}
	if _, err := os.Stat(filepath.Join(dir, dockerfile)); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"dockerfile\": no %s in %s; give the Dockerfile's path relative to path", dockerfile, dir)
	}
	excludes, err := dockerignore(dir)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"path\": reading %s: %v", filepath.Join(dir, ".dockerignore"), err)
	}
	e, err := engineOf(ctx, call)
	if err != nil {
		return nil, err
	}
	tar, err := archive.TarWithOptions(dir, &archive.TarOptions{ExcludePatterns: excludes})
	if err != nil {
		return nil, tool.Errorf(tool.CodeToolError, "packing the build context %s: %v", dir, err)
	}
	defer tar.Close()
	started := time.Now()
	resp, err := e.cli.ImageBuild(ctx, tar, build.ImageBuildOptions{
		Tags: tags, Dockerfile: dockerfile, BuildArgs: in.BuildArgs, NoCache: in.NoCache, Target: in.Target,
		Labels: withLabel(in.Labels, BuiltLabel), PullParent: in.Pull, Platform: in.Platform, Remove: true, ForceRemove: true,
		Version: build.BuilderV1,
	})
	if err != nil {
		return nil, e.apiError("building "+dir, err, "")
	}
	defer resp.Body.Close()
	var id string
	var steps int
	var last []string // the current step's lines, the step's first line kept
	progress := tool.ProgressFrom(ctx)
	err = readMessages(resp.Body, func(m jsonmessage.JSONMessage) error {
		if m.Error != nil {
			return errors.New(m.Error.Message)
		}
		if m.Aux != nil {
			var aux struct{ ID string }
			if json.Unmarshal(*m.Aux, &aux) == nil && aux.ID != "" {
				id = aux.ID
			}
		}
		for _, line := range strings.Split(strings.TrimRight(m.Stream, "\n"), "\n") {
			if line = strings.TrimRight(line, "\r "); line == "" {
				continue
			}
			if strings.HasPrefix(line, "Step ") {
				steps++
				last = last[:0]
			}
			last = appendBounded(last, line, stepLines)
			progress(float64(steps), 0, tool.CutText(line, 300))
		}
		if m.Status != "" {
			progress(float64(steps), 0, tool.CutText(m.Status, 300))
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, tool.Errorf(tool.CodeToolError, "build of %s failed at step %d: %s\n%s", dir, steps, strings.TrimSpace(err.Error()), strings.Join(last, "\n"))
	}
	out := map[string]any{"imageId": shortID(id), "tags": tags, "steps": steps, "durationMs": time.Since(started).Milliseconds()}
	if len(last) > 0 {
		out["lastLines"] = last
	}
	return out, nil
}

// appendBounded appends line keeping the first line and the last n-1.
func appendBounded(ls []string, line string, n int) []string {
	ls = append(ls, tool.CutText(line, 1000))
	if len(ls) > n {
		ls = append(ls[:1], ls[len(ls)-n+1:]...)
	}
	return ls
}

// dockerignore reads the context's .dockerignore, as docker build does.
func dockerignore(dir string) ([]string, error) {
	f, err := os.Open(filepath.Join(dir, ".dockerignore"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ignorefile.ReadAll(f)
}

// readMessages decodes the Engine's stream of JSON messages (a build's,
// a pull's) and gives each to f, stopping at f's first error.
func readMessages(r io.Reader, f func(jsonmessage.JSONMessage) error) error {
	dec := json.NewDecoder(r)
	for {
		var m jsonmessage.JSONMessage
		if err := dec.Decode(&m); err != nil {
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("reading the daemon's messages: %w", err)
		}
		if err := f(m); err != nil {
			return err
		}
	}
}

// --- docker_images

type imagesIn struct {
	All    bool    `json:"all"`
	Filter filterV `json:"filter"`
}

func imagesTool() tool.Tool {
	return tool.Tool{
		Def: def("docker_images", groupImages, "List images as a compact table (id, tags, size, created), as docker images does.", false,
			schema.Object(
				schema.Boolean("all", "Also intermediate images (docker images -a)").Default(false),
				filterArg(`reference=app:*, dangling=true, label=io.barrhawk.managed`))).
			WithPhrases("what images do i have", "local images", "image sizes", "docker image ls", "which images are pulled", "image tags locally"),
		Run: tool.Typed(func(ctx context.Context, in imagesIn, call *tool.Call) (any, error) {
			e, f, err := filtered(ctx, call, in.Filter)
			if err != nil {
				return nil, err
			}
			list, err := e.cli.ImageList(ctx, image.ListOptions{All: in.All, Filters: f})
			if err != nil {
				return nil, e.apiError("listing images", err, "")
			}
			rows := make([]map[string]any, 0, len(list))
			for _, img := range list {
				row := map[string]any{"id": shortID(img.ID), "tags": img.RepoTags, "size": units.HumanSizeWithPrecision(float64(img.Size), 3), "created": ago(time.Unix(img.Created, 0))}
				if len(img.RepoTags) == 0 {
					row["tags"] = []string{"<none>:<none>"}
				}
				if img.Labels[BuiltLabel] == labelValue {
					row["managed"] = true
				}
				rows = append(rows, row)
			}
			return map[string]any{"images": rows, "count": len(rows)}, nil
		}),
	}
}

// --- docker_pull

type pullIn struct {
	Image    string `json:"image"`
	Platform string `json:"platform"`
}

func pullTool() tool.Tool {
	return tool.Tool{
		Def: def("docker_pull", groupImages, "Pull an image from its registry, as docker pull does, with the credentials of the user's Docker config (never shown); progress is sent per layer, and the call's timeout bounds it.", true,
			schema.Object(
				schema.String("image", "Image reference: busybox, nginx:1.27, ghcr.io/owner/app:tag, repo@sha256:...").Required(),
				schema.String("platform", "Platform, such as linux/arm64"))).
			WithPhrases("fetch image", "download image", "pull from registry", "ghcr pull", "update base image", "docker hub pull"),
		Run: tool.Typed(func(ctx context.Context, in pullIn, call *tool.Call) (any, error) {
			e, err := engineOf(ctx, call)
			if err != nil {
				return nil, err
			}
			return e.pull(ctx, in.Image, in.Platform)
		}),
	}
}

// pull pulls ref, sending progress, and answers its digest and status.
func (e *engine) pull(ctx context.Context, ref, platform string) (map[string]any, error) {
	if ref == "" {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"image\": empty; give a reference such as busybox:1.36")
	}
	started := time.Now()
	rc, err := e.cli.ImagePull(ctx, ref, image.PullOptions{RegistryAuth: registryAuth(ref), Platform: platform})
	if err != nil {
		return nil, e.pullError(ctx, ref, err)
	}
	defer rc.Close()
	progress := tool.ProgressFrom(ctx)
	var digest, status string
	layers := map[string]bool{}
	err = readMessages(rc, func(m jsonmessage.JSONMessage) error {
		if m.Error != nil {
			return errors.New(m.Error.Message)
		}
		if d, ok := strings.CutPrefix(m.Status, "Digest: "); ok {
			digest = d
		}
		if strings.HasPrefix(m.Status, "Status: ") {
			status = strings.TrimPrefix(m.Status, "Status: ")
		}
		if m.ID != "" {
			if m.Status == "Pull complete" || m.Status == "Already exists" {
				layers[m.ID] = true
			} else if _, seen := layers[m.ID]; !seen {
				layers[m.ID] = false
			}
		}
		done := 0
		for _, ok := range layers {
			if ok {
				done++
			}
		}
		progress(float64(done), float64(len(layers)), tool.CutText(strings.TrimSpace(m.ID+" "+m.Status), 200))
		return nil
	})
	if err != nil {
		return nil, e.pullError(ctx, ref, err)
	}
	out := map[string]any{"image": ref, "status": status, "layers": len(layers), "durationMs": time.Since(started).Milliseconds()}
	if digest != "" {
		out["digest"] = digest
	}
	return out, nil
}

// pullError says why a pull failed, and what to do when the registry
// cannot be reached or refuses.
func (e *engine) pullError(ctx context.Context, ref string, err error) error {
	if ctx.Err() != nil {
		return tool.Errorf(tool.CodeTimeout, "pulling %s: the call's time ran out before the pull ended (%v); pass a longer timeout, or build the image locally with docker_build", ref, ctx.Err())
	}
	msg := shortErr(err)
	hint := ""
	switch {
	case strings.Contains(msg, "dial tcp") || strings.Contains(msg, "no such host") || strings.Contains(msg, "lookup ") || strings.Contains(msg, "i/o timeout") || strings.Contains(msg, "connection refused") || strings.Contains(msg, "network is unreachable"):
		hint = "; the registry could not be reached from the daemon (no network, a proxy, or a wrong registry host): build the image locally with docker_build, or load it on the daemon"
	case strings.Contains(msg, "unauthorized") || strings.Contains(msg, "denied") || strings.Contains(msg, "authentication required"):
		hint = "; the registry refused: log in with docker login (its credentials are read from the Docker config), or check the repository's name"
	case strings.Contains(msg, "not found") || strings.Contains(msg, "manifest unknown"):
		hint = "; check the name and tag (docker_images lists the local ones)"
	}
	var te *tool.Error
	if errors.As(err, &te) {
		return err
	}
	return tool.Errorf(tool.CodeToolError, "pulling %s: %s%s", ref, msg, hint)
}
