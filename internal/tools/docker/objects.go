package docker

// Networks, volumes and docker_cleanup. What docker_networks and
// docker_volumes create carries the managed label; docker_cleanup removes
// what carries it (containers, the images docker_build made, networks,
// volumes) and, told all with confirm, what BarrHawk did not create the
// way docker's prune commands do.

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/versions"
	"github.com/docker/docker/api/types/volume"
	"github.com/google/jsonschema-go/jsonschema"
)

// objectTools returns docker_networks, docker_volumes and docker_cleanup.
func objectTools() []tool.Tool {
	return []tool.Tool{networksTool(), volumesTool(), cleanupTool()}
}

// objLabelsArg is the labels argument of create: an object of strings.
func objLabelsArg(what string) schema.Prop {
	return schema.Of("labels", "create: labels of the "+what+" as {key: value}; "+Label+"=true is always added",
		&jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Type: "string"}})
}

// hasManagedLabel reports whether labels carry BarrHawk's label.
func hasManagedLabel(labels map[string]string) bool {
	return labels[Label] == labelValue
}

// managedOnly is the Engine API filter of what BarrHawk created.
func managedOnly() filters.Args {
	return filters.NewArgs(filters.Arg("label", Label+"="+labelValue))
}

// objEngine checks the arguments of docker_networks or docker_volumes (tl)
// for action (every action but list needs a name of the kind; only create
// takes the arguments given marks) and returns the engine.
func objEngine(ctx context.Context, call *tool.Call, tl, kind, action, name string, given map[string]bool) (*engine, error) {
	if err := objCreateOnly(action, given); err != nil {
		return nil, err
	}
	if action != "list" {
		if err := objNeedName(tl, action, name, kind); err != nil {
			return nil, err
		}
	}
	return engineOf(ctx, call)
}

// objNeedName refuses an action of tl that needs a name when none was given.
func objNeedName(tl, action, name, kind string) error {
	if strings.TrimSpace(name) != "" {
		return nil
	}
	return tool.Errorf(tool.CodeInvalidArgs, "argument \"name\" is required with action %q: give the %s's name (or id); %s {action: \"list\"} lists them", action, kind, tl)
}

// objCreateOnly refuses an argument that only action create takes when
// another action was asked for; given lists the arguments present.
func objCreateOnly(action string, given map[string]bool) error {
	if action == "create" {
		return nil
	}
	for _, arg := range []string{"driver", "labels", "internal"} {
		if given[arg] {
			return tool.Errorf(tool.CodeInvalidArgs, "argument %q applies only to action \"create\", not %q; leave it out", arg, action)
		}
	}
	return nil
}

// netRow is one network of docker_networks list.
type netRow struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Driver   string `json:"driver"`
	Scope    string `json:"scope"`
	Internal bool   `json:"internal,omitempty"`
	Managed  bool   `json:"managed"`
}

// netMember is a container attached to a network, as inspect shows it.
type netMember struct {
	Name string `json:"name"`
	IPv4 string `json:"ipv4,omitempty"`
	IPv6 string `json:"ipv6,omitempty"`
}

// netSubnet is one IPAM configuration of a network.
type netSubnet struct {
	Subnet  string `json:"subnet,omitempty"`
	Gateway string `json:"gateway,omitempty"`
}

// networksTool is docker_networks: list, create, remove and inspect
// networks.
func networksTool() tool.Tool {
	type args struct {
		Action   string            `json:"action"`
		Name     string            `json:"name"`
		Driver   string            `json:"driver"`
		Labels   map[string]string `json:"labels"`
		Internal *bool             `json:"internal"`
	}
	const name = "docker_networks"
	return tool.Tool{
		Def: def(name, groupObjects, "List, create, remove or inspect networks, as docker network does (what it creates is labelled as BarrHawk's). action list: {networks: [{id, name, driver, scope, managed}], count} (name filters by substring); "+
			"create: makes a network labelled "+Label+"=true (docker_cleanup removes it), answers {id, name}; remove: by name or id; "+
			"inspect: {id, name, driver, scope, internal, created, managed, subnet, gateway, containers: [{name, ipv4}], labels}.", true,
			schema.Object(
				schema.String("action", "What to do").Required().EnumStrings("list", "create", "remove", "inspect"),
				schema.String("name", "The network's name (or id for remove and inspect); required but for list, where it filters by substring"),
				schema.String("driver", "create: the network driver (default bridge)"),
				objLabelsArg("network"),
				schema.Boolean("internal", "create: an internal network, with no route outside (default false)"),
			)).
			WithPhrases("docker network ls", "docker network create", "container networking", "bridge network", "network subnet", "connect containers", "network gateway"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			e, err := objEngine(ctx, call, name, "network", in.Action, in.Name, map[string]bool{"driver": in.Driver != "", "labels": in.Labels != nil, "internal": in.Internal != nil})
			if err != nil {
				return nil, err
			}
			list := name + " {action: \"list\"}"
			switch in.Action {
			case "list":
				opts := network.ListOptions{}
				if in.Name != "" {
					opts.Filters = filters.NewArgs(filters.Arg("name", in.Name))
				}
				nets, err := e.cli.NetworkList(ctx, opts)
				if err != nil {
					return nil, e.apiError("list networks", err, "")
				}
				rows := make([]netRow, 0, len(nets))
				for _, n := range nets {
					rows = append(rows, netRow{ID: shortID(n.ID), Name: n.Name, Driver: n.Driver, Scope: n.Scope, Internal: n.Internal, Managed: hasManagedLabel(n.Labels)})
				}
				sort.Slice(rows, func(i, j int) bool { return rows[i].Name < rows[j].Name })
				return map[string]any{"networks": rows, "count": len(rows)}, nil
			case "create":
				opts := network.CreateOptions{Driver: in.Driver, Labels: managedLabels(in.Labels)}
				if in.Internal != nil {
					opts.Internal = *in.Internal
				}
				resp, err := e.cli.NetworkCreate(ctx, in.Name, opts)
				if err != nil {
					return nil, e.apiError(fmt.Sprintf("create network %q", in.Name), err, "")
				}
				out := map[string]any{"id": shortID(resp.ID), "name": in.Name}
				if resp.Warning != "" {
					out["warning"] = resp.Warning
				}
				return out, nil
			case "remove":
				if err := e.cli.NetworkRemove(ctx, in.Name); err != nil {
					return nil, e.apiError(fmt.Sprintf("remove network %q", in.Name), err, list)
				}
				return map[string]any{"removed": in.Name}, nil
			case "inspect":
				n, err := e.cli.NetworkInspect(ctx, in.Name, network.InspectOptions{})
				if err != nil {
					return nil, e.apiError(fmt.Sprintf("inspect network %q", in.Name), err, list)
				}
				return netInfo(n), nil
			}
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"action\": %q is not one of list, create, remove, inspect", in.Action)
		}),
	}
}

// netInfo is the trimmed inspect answer of a network: its subnet and
// gateway, and the containers attached with their addresses.
func netInfo(n network.Inspect) map[string]any {
	members := make([]netMember, 0, len(n.Containers))
	for _, c := range n.Containers {
		members = append(members, netMember{Name: c.Name, IPv4: addrOnly(c.IPv4Address), IPv6: addrOnly(c.IPv6Address)})
	}
	sort.Slice(members, func(i, j int) bool { return members[i].Name < members[j].Name })
	labels := n.Labels
	if labels == nil {
		labels = map[string]string{}
	}
	out := map[string]any{
		"id": shortID(n.ID), "name": n.Name, "driver": n.Driver, "scope": n.Scope,
		"internal": n.Internal, "managed": hasManagedLabel(n.Labels), "containers": members, "labels": labels,
	}
	if !n.Created.IsZero() {
		out["created"] = n.Created.UTC().Format(time.RFC3339)
	}
	var subnets []netSubnet
	for _, c := range n.IPAM.Config {
		subnets = append(subnets, netSubnet{Subnet: c.Subnet, Gateway: c.Gateway})
	}
	if len(subnets) > 0 {
		out["subnet"], out["gateway"] = subnets[0].Subnet, subnets[0].Gateway
	}
	if len(subnets) > 1 {
		out["subnets"] = subnets
	}
	return out
}

// addrOnly is an address without its prefix length ("172.18.0.2/16" is
// "172.18.0.2").
func addrOnly(addr string) string {
	a, _, _ := strings.Cut(addr, "/")
	return a
}

// volRow is one volume of docker_volumes list.
type volRow struct {
	Name       string `json:"name"`
	Driver     string `json:"driver"`
	Mountpoint string `json:"mountpoint"`
	Managed    bool   `json:"managed"`
}

// volumesTool is docker_volumes: list, create, remove and inspect volumes.
func volumesTool() tool.Tool {
	type args struct {
		Action string            `json:"action"`
		Name   string            `json:"name"`
		Driver string            `json:"driver"`
		Labels map[string]string `json:"labels"`
	}
	const name = "docker_volumes"
	return tool.Tool{
		Def: def(name, groupObjects, "List, create, remove or inspect volumes, as docker volume does (what it creates is labelled as BarrHawk's). action list: {volumes: [{name, driver, mountpoint, managed}], count} (name filters by substring); "+
			"create: makes a named volume labelled "+Label+"=true (docker_cleanup removes it), answers {name, driver, mountpoint}; remove: by name (refused while a container uses it); "+
			"inspect: {name, driver, mountpoint, scope, created, managed, labels, options, usedBy: [container names]}.", true,
			schema.Object(
				schema.String("action", "What to do").Required().EnumStrings("list", "create", "remove", "inspect"),
				schema.String("name", "The volume's name; required but for list, where it filters by substring"),
				schema.String("driver", "create: the volume driver (default local)"),
				objLabelsArg("volume"),
			)).
			WithPhrases("docker volume ls", "persistent storage", "named volume", "docker volume create", "data volume", "volume mountpoint", "who uses volume"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			e, err := objEngine(ctx, call, name, "volume", in.Action, in.Name, map[string]bool{"driver": in.Driver != "", "labels": in.Labels != nil})
			if err != nil {
				return nil, err
			}
			list := name + " {action: \"list\"}"
			switch in.Action {
			case "list":
				opts := volume.ListOptions{}
				if in.Name != "" {
					opts.Filters = filters.NewArgs(filters.Arg("name", in.Name))
				}
				resp, err := e.cli.VolumeList(ctx, opts)
				if err != nil {
					return nil, e.apiError("list volumes", err, "")
				}
				rows := make([]volRow, 0, len(resp.Volumes))
				for _, v := range resp.Volumes {
					if v != nil {
						rows = append(rows, volRow{Name: v.Name, Driver: v.Driver, Mountpoint: v.Mountpoint, Managed: hasManagedLabel(v.Labels)})
					}
				}
				sort.Slice(rows, func(i, j int) bool { return rows[i].Name < rows[j].Name })
				out := map[string]any{"volumes": rows, "count": len(rows)}
				if len(resp.Warnings) > 0 {
					out["warnings"] = resp.Warnings
				}
				return out, nil
			case "create":
				// The daemon answers the existing volume when the name is
				// taken; say so rather than claim it was made.
				if old, err := e.cli.VolumeInspect(ctx, in.Name); err == nil {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"name\": a volume named %q exists (driver %s, managed %v); remove it first (%s {action: \"remove\", name: %q}) or choose another name",
						in.Name, old.Driver, hasManagedLabel(old.Labels), name, in.Name)
				}
				v, err := e.cli.VolumeCreate(ctx, volume.CreateOptions{Name: in.Name, Driver: in.Driver, Labels: managedLabels(in.Labels)})
				if err != nil {
					return nil, e.apiError(fmt.Sprintf("create volume %q", in.Name), err, "")
				}
				return map[string]any{"name": v.Name, "driver": v.Driver, "mountpoint": v.Mountpoint}, nil
			case "remove":
				if err := e.cli.VolumeRemove(ctx, in.Name, false); err != nil {
					return nil, e.apiError(fmt.Sprintf("remove volume %q", in.Name), err, list)
				}
				return map[string]any{"removed": in.Name}, nil
			case "inspect":
				v, err := e.cli.VolumeInspect(ctx, in.Name)
				if err != nil {
					return nil, e.apiError(fmt.Sprintf("inspect volume %q", in.Name), err, list)
				}
				return volInfo(ctx, e, v), nil
			}
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"action\": %q is not one of list, create, remove, inspect", in.Action)
		}),
	}
}

// volInfo is the inspect answer of a volume, with the names of the
// containers (running or not) that use it.
func volInfo(ctx context.Context, e *engine, v volume.Volume) map[string]any {
	labels, options := v.Labels, v.Options
	if labels == nil {
		labels = map[string]string{}
	}
	if options == nil {
		options = map[string]string{}
	}
	out := map[string]any{
		"name": v.Name, "driver": v.Driver, "mountpoint": v.Mountpoint, "scope": v.Scope,
		"managed": hasManagedLabel(v.Labels), "labels": labels, "options": options,
	}
	if v.CreatedAt != "" {
		out["created"] = v.CreatedAt
	}
	if cs, err := e.cli.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("volume", v.Name))}); err == nil {
		used := make([]string, 0, len(cs))
		for _, c := range cs {
			used = append(used, objContainerName(c))
		}
		sort.Strings(used)
		out["usedBy"] = used
	}
	return out
}

// objContainerName is a container's name without the leading slash, or its
// short id when it has none.
func objContainerName(c container.Summary) string {
	if len(c.Names) > 0 {
		return strings.TrimPrefix(c.Names[0], "/")
	}
	return shortID(c.ID)
}

// objImageName is an image's first tag, or its short id when it has none.
func objImageName(im image.Summary) string {
	for _, t := range im.RepoTags {
		if t != "<none>:<none>" {
			return t
		}
	}
	return shortID(im.ID)
}

// Kinds of resources docker_cleanup removes, in the order it removes them:
// containers first, so that what they held (networks, volumes, images) is
// free.
const (
	cleanContainers = "containers"
	cleanNetworks   = "networks"
	cleanVolumes    = "volumes"
	cleanImages     = "images"
)

// cleanKinds are the kinds in the order docker_cleanup removes them.
var cleanKinds = []string{cleanContainers, cleanNetworks, cleanVolumes, cleanImages}

// cleanupRefusal is the error of all without confirm.
const cleanupRefusal = "all: true removes resources BarrHawk did not create (stopped containers, unused networks, dangling images, unused volumes); add confirm: true to do it, or dryRun: true to see what it would remove"

// cleanupRun is one docker_cleanup: what it removed (or would), the space
// the prunes gave back, and what failed.
type cleanupRun struct {
	e       *engine
	dryRun  bool
	removed map[string][]string
	seen    map[string]map[string]bool
	space   uint64
	errs    []string
	// stay are the containers a dry run leaves, once read (stayKnown):
	// what keeps a volume or an image from going.
	stay      []container.Summary
	stayKnown bool
}

// add records name as removed (or to be removed) of kind, once.
func (c *cleanupRun) add(kind, name string) {
	if c.seen[kind] == nil {
		c.seen[kind] = map[string]bool{}
	}
	if c.seen[kind][name] {
		return
	}
	c.seen[kind][name] = true
	c.removed[kind] = append(c.removed[kind], name)
}

// fail records a failure: what was being done, and the daemon's answer.
func (c *cleanupRun) fail(what string, err error) {
	c.errs = append(c.errs, what+": "+strings.TrimPrefix(shortErr(err), "Error response from daemon: "))
}

// cleanupTool is docker_cleanup: remove what BarrHawk created, or, with all
// and confirm, also what docker's prune commands would.
func cleanupTool() tool.Tool {
	type args struct {
		Containers *bool `json:"containers"`
		Images     *bool `json:"images"`
		Volumes    *bool `json:"volumes"`
		Networks   *bool `json:"networks"`
		All        bool  `json:"all"`
		Confirm    bool  `json:"confirm"`
		DryRun     bool  `json:"dryRun"`
	}
	return tool.Tool{
		Def: def("docker_cleanup", groupObjects, "Remove what BarrHawk created: the containers (running ones too, with their anonymous volumes), networks and volumes labelled "+Label+"=true and the images docker_build made ("+BuiltLabel+"=true); nothing else. "+
			"Choose kinds with containers, images, volumes, networks (none given: all four). all: true with confirm: true also prunes what BarrHawk did not create, as docker's prune commands do: "+
			"stopped containers (never running ones), unused networks, dangling images, unused volumes. dryRun: true lists what would go and removes nothing. "+
			"Answers {removed: {containers, images, networks, volumes: [names]}, spaceReclaimed (bytes, when the daemon says), errors: [what could not be removed and why]} (dryRun: {wouldRemove: {...}}); "+
			"a failure does not stop the rest.", true,
			schema.Object(
				schema.Boolean("containers", "Remove containers (when no kind is given, all four kinds are)"),
				schema.Boolean("images", "Remove images (when no kind is given, all four kinds are)"),
				schema.Boolean("volumes", "Remove volumes (when no kind is given, all four kinds are)"),
				schema.Boolean("networks", "Remove networks (when no kind is given, all four kinds are)"),
				schema.Boolean("all", "Also remove what BarrHawk did not create: stopped containers, unused networks, dangling images, unused volumes (needs confirm: true, or dryRun: true)"),
				schema.Boolean("confirm", "Confirms all: true"),
				schema.Boolean("dryRun", "List what would be removed, and remove nothing"),
			)).
			WithPhrases("docker prune", "free disk space", "remove leftovers", "clean up containers", "system prune", "reclaim space", "delete test containers", "reset docker to before", "remove only what we created", "everything it spun up, leave my own containers alone", "remove containers we started", "dangling images"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			if in.All && !in.Confirm && !in.DryRun {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "%s", cleanupRefusal)
			}
			kinds := kindsAsked(map[string]*bool{cleanContainers: in.Containers, cleanImages: in.Images, cleanVolumes: in.Volumes, cleanNetworks: in.Networks})
			if len(kinds) == 0 {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "every kind is false: set one of containers, images, volumes, networks to true, or give none for all four")
			}
			e, err := engineOf(ctx, call)
			if err != nil {
				return nil, err
			}
			c := &cleanupRun{e: e, dryRun: in.DryRun, removed: map[string][]string{}, seen: map[string]map[string]bool{}}
			for _, k := range kinds {
				c.removed[k] = []string{}
			}
			for _, k := range kinds {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				switch k {
				case cleanContainers:
					c.managedContainers(ctx)
					if in.All {
						c.pruneContainers(ctx)
					}
				case cleanNetworks:
					c.managedNetworks(ctx)
					if in.All {
						c.pruneNetworks(ctx)
					}
				case cleanVolumes:
					c.managedVolumes(ctx)
					if in.All {
						c.pruneVolumes(ctx)
					}
				case cleanImages:
					c.managedImages(ctx)
					if in.All {
						c.pruneImages(ctx)
					}
				}
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			scope := "managed: only what carries " + Label + "=" + labelValue
			if in.All {
				scope = "all: what BarrHawk created, and stopped containers, unused networks, dangling images, unused volumes"
			}
			out := map[string]any{"scope": scope}
			if in.DryRun {
				out["dryRun"] = true
				out["wouldRemove"] = c.removed
			} else {
				out["removed"] = c.removed
				if c.space > 0 {
					out["spaceReclaimed"] = c.space
				}
			}
			if len(c.errs) > 0 {
				out["errors"] = c.errs
			}
			return out, nil
		}),
	}
}

// kindsAsked are the kinds asked for, in removal order: those set true;
// when none is true, every kind not set false.
func kindsAsked(given map[string]*bool) []string {
	anyTrue := false
	for _, v := range given {
		if v != nil && *v {
			anyTrue = true
		}
	}
	var kinds []string
	for _, k := range cleanKinds {
		v := given[k]
		if anyTrue && v != nil && *v || !anyTrue && (v == nil || *v) {
			kinds = append(kinds, k)
		}
	}
	return kinds
}

// managedContainers removes the labelled containers, running ones too,
// with their anonymous volumes.
func (c *cleanupRun) managedContainers(ctx context.Context) {
	cs, err := c.e.cli.ContainerList(ctx, container.ListOptions{All: true, Filters: managedOnly()})
	if err != nil {
		c.fail("list managed containers", err)
		return
	}
	for _, ct := range cs {
		name := objContainerName(ct)
		if !c.dryRun {
			if err := c.e.cli.ContainerRemove(ctx, ct.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
				c.fail("container "+name, err)
				continue
			}
		}
		c.add(cleanContainers, name)
	}
}

// notRunning is the filter of containers that are not running (the
// ones docker container prune removes).
func notRunning() filters.Args {
	return filters.NewArgs(filters.Arg("status", "created"), filters.Arg("status", "exited"), filters.Arg("status", "dead"))
}

// pruneContainers removes every stopped container (ContainersPrune), or
// lists them on a dry run.
func (c *cleanupRun) pruneContainers(ctx context.Context) {
	cs, err := c.e.cli.ContainerList(ctx, container.ListOptions{All: true, Filters: notRunning()})
	if err != nil {
		c.fail("list stopped containers", err)
		return
	}
	if c.dryRun {
		for _, ct := range cs {
			c.add(cleanContainers, objContainerName(ct))
		}
		return
	}
	names := map[string]string{}
	for _, ct := range cs {
		names[ct.ID] = objContainerName(ct)
	}
	rep, err := c.e.cli.ContainersPrune(ctx, filters.NewArgs())
	if err != nil {
		c.fail("prune stopped containers", err)
		return
	}
	for _, id := range rep.ContainersDeleted {
		name, ok := names[id]
		if !ok {
			name = shortID(id)
		}
		c.add(cleanContainers, name)
	}
	c.space += rep.SpaceReclaimed
}

// staying are the containers a dry run leaves in place: every container
// but those it would remove (the kind containers comes first, so those
// are known by then). They are read once.
func (c *cleanupRun) staying(ctx context.Context) ([]container.Summary, error) {
	if c.stayKnown {
		return c.stay, nil
	}
	cs, err := c.e.cli.ContainerList(ctx, container.ListOptions{All: true})
	if err != nil {
		return nil, err
	}
	for _, ct := range cs {
		if !c.seen[cleanContainers][objContainerName(ct)] {
			c.stay = append(c.stay, ct)
		}
	}
	c.stayKnown = true
	return c.stay, nil
}

// holders are the names of the staying containers for which holds is
// true: what would keep a volume or an image from going.
func (c *cleanupRun) holders(ctx context.Context, holds func(container.Summary) bool) ([]string, error) {
	stay, err := c.staying(ctx)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, ct := range stay {
		if holds(ct) {
			names = append(names, objContainerName(ct))
		}
	}
	return names, nil
}

// networkHolders are the names of the containers attached to a network
// that a dry run leaves running (a stopped container holds no network).
func (c *cleanupRun) networkHolders(ctx context.Context, id string) ([]string, error) {
	// The list does not say which containers are attached; inspect does.
	n, err := c.e.cli.NetworkInspect(ctx, id, network.InspectOptions{})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range n.Containers {
		if !c.seen[cleanContainers][m.Name] {
			names = append(names, m.Name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// wouldFail records, on a dry run, what would not go because containers
// that stay hold it.
func (c *cleanupRun) wouldFail(what string, by []string) {
	c.errs = append(c.errs, fmt.Sprintf("%s: in use by %s, which would stay; it would not be removed", what, strings.Join(by, ", ")))
}

// managedNetworks removes the labelled networks; one still in use by a
// container is an error of the answer.
func (c *cleanupRun) managedNetworks(ctx context.Context) {
	nets, err := c.e.cli.NetworkList(ctx, network.ListOptions{Filters: managedOnly()})
	if err != nil {
		c.fail("list managed networks", err)
		return
	}
	for _, n := range nets {
		if c.dryRun {
			by, err := c.networkHolders(ctx, n.ID)
			if err != nil {
				c.fail("inspect network "+n.Name, err)
				continue
			}
			if len(by) > 0 {
				c.wouldFail("network "+n.Name, by)
				continue
			}
		} else if err := c.e.cli.NetworkRemove(ctx, n.ID); err != nil {
			c.fail("network "+n.Name, err)
			continue
		}
		c.add(cleanNetworks, n.Name)
	}
}

// predefinedNetwork reports whether name is one of the daemon's own
// networks, which prune never removes.
func predefinedNetwork(name string) bool {
	return slices.Contains([]string{network.NetworkBridge, network.NetworkHost, network.NetworkNone, network.NetworkDefault, network.NetworkNat, "ingress", "docker_gwbridge"}, name)
}

// pruneNetworks removes every network no container is attached to but the
// daemon's own (NetworksPrune), or lists them on a dry run.
func (c *cleanupRun) pruneNetworks(ctx context.Context) {
	if !c.dryRun {
		rep, err := c.e.cli.NetworksPrune(ctx, filters.NewArgs())
		if err != nil {
			c.fail("prune unused networks", err)
			return
		}
		for _, name := range rep.NetworksDeleted {
			c.add(cleanNetworks, name)
		}
		return
	}
	nets, err := c.e.cli.NetworkList(ctx, network.ListOptions{})
	if err != nil {
		c.fail("list networks", err)
		return
	}
	for _, n := range nets {
		if predefinedNetwork(n.Name) || n.Ingress || c.seen[cleanNetworks][n.Name] {
			continue
		}
		by, err := c.networkHolders(ctx, n.ID)
		if err != nil {
			c.fail("inspect network "+n.Name, err)
			continue
		}
		if len(by) == 0 {
			c.add(cleanNetworks, n.Name)
		}
	}
}

// usesVolume returns whether a container mounts the named volume.
func usesVolume(name string) func(container.Summary) bool {
	return func(ct container.Summary) bool {
		return slices.ContainsFunc(ct.Mounts, func(m container.MountPoint) bool { return m.Name == name })
	}
}

// managedVolumes removes the labelled volumes; one still in use is an
// error of the answer.
func (c *cleanupRun) managedVolumes(ctx context.Context) {
	resp, err := c.e.cli.VolumeList(ctx, volume.ListOptions{Filters: managedOnly()})
	if err != nil {
		c.fail("list managed volumes", err)
		return
	}
	for _, v := range resp.Volumes {
		if v == nil {
			continue
		}
		if c.dryRun {
			by, err := c.holders(ctx, usesVolume(v.Name))
			if err != nil {
				c.fail("list containers", err)
				return
			}
			if len(by) > 0 {
				c.wouldFail("volume "+v.Name, by)
				continue
			}
		} else if err := c.e.cli.VolumeRemove(ctx, v.Name, false); err != nil {
			c.fail("volume "+v.Name, err)
			continue
		}
		c.add(cleanVolumes, v.Name)
	}
}

// pruneVolumes removes every volume no container uses (VolumesPrune), or
// lists them on a dry run. From API 1.42 the daemon prunes only anonymous
// volumes unless the filter all=true is given, which older daemons refuse;
// it is given by the API version the client negotiated.
func (c *cleanupRun) pruneVolumes(ctx context.Context) {
	// The list comes first: it also makes the client negotiate its API
	// version, which the filter below depends on.
	resp, err := c.e.cli.VolumeList(ctx, volume.ListOptions{})
	if err != nil {
		c.fail("list volumes", err)
		return
	}
	if c.dryRun {
		for _, v := range resp.Volumes {
			if v == nil || c.seen[cleanVolumes][v.Name] {
				continue
			}
			by, err := c.holders(ctx, usesVolume(v.Name))
			if err != nil {
				c.fail("list containers", err)
				return
			}
			if len(by) == 0 {
				c.add(cleanVolumes, v.Name)
			}
		}
		return
	}
	f := filters.NewArgs()
	if versions.GreaterThanOrEqualTo(c.e.cli.ClientVersion(), "1.42") {
		f.Add("all", "true")
	}
	rep, err := c.e.cli.VolumesPrune(ctx, f)
	if err != nil {
		c.fail("prune unused volumes", err)
		return
	}
	for _, name := range rep.VolumesDeleted {
		c.add(cleanVolumes, name)
	}
	c.space += rep.SpaceReclaimed
}

// usesImage returns whether a container was made from the image id.
func usesImage(id string) func(container.Summary) bool {
	return func(ct container.Summary) bool { return ct.ImageID == id }
}

// managedImages removes the labelled images (the ones docker_build made),
// newest first so that an image goes before the one it was built from.
// An image with several tags loses them one by one, the last removing it;
// nothing is forced, so an image a container still uses stays, and is an
// error of the answer.
func (c *cleanupRun) managedImages(ctx context.Context) {
	ims, err := c.e.cli.ImageList(ctx, image.ListOptions{Filters: filters.NewArgs(filters.Arg("label", BuiltLabel+"="+labelValue))})
	if err != nil {
		c.fail("list managed images", err)
		return
	}
	sort.SliceStable(ims, func(i, j int) bool { return ims[i].Created > ims[j].Created })
	for _, im := range ims {
		name := objImageName(im)
		if c.dryRun {
			by, err := c.holders(ctx, usesImage(im.ID))
			if err != nil {
				c.fail("list containers", err)
				return
			}
			if len(by) > 0 {
				c.wouldFail("image "+name, by)
				continue
			}
		} else if err := c.removeImage(ctx, im); err != nil {
			c.fail("image "+name, err)
			continue
		}
		c.add(cleanImages, name)
	}
}

// removeImage removes one image without force: by each of its tags, or by
// id when it has none.
func (c *cleanupRun) removeImage(ctx context.Context, im image.Summary) error {
	var refs []string
	for _, t := range im.RepoTags {
		if t != "<none>:<none>" {
			refs = append(refs, t)
		}
	}
	if len(refs) == 0 {
		refs = []string{im.ID}
	}
	for _, ref := range refs {
		if _, err := c.e.cli.ImageRemove(ctx, ref, image.RemoveOptions{PruneChildren: true}); err != nil {
			return err
		}
	}
	return nil
}

// pruneImages removes the dangling images no container uses
// (ImagesPrune with dangling=true), or lists them on a dry run.
func (c *cleanupRun) pruneImages(ctx context.Context) {
	dangling := filters.NewArgs(filters.Arg("dangling", "true"))
	if !c.dryRun {
		rep, err := c.e.cli.ImagesPrune(ctx, dangling)
		if err != nil {
			c.fail("prune dangling images", err)
			return
		}
		for _, d := range rep.ImagesDeleted {
			if d.Deleted != "" {
				c.add(cleanImages, shortID(d.Deleted))
			}
		}
		c.space += rep.SpaceReclaimed
		return
	}
	ims, err := c.e.cli.ImageList(ctx, image.ListOptions{Filters: dangling})
	if err != nil {
		c.fail("list dangling images", err)
		return
	}
	for _, im := range ims {
		by, err := c.holders(ctx, usesImage(im.ID))
		if err != nil {
			c.fail("list containers", err)
			return
		}
		if len(by) == 0 {
			c.add(cleanImages, objImageName(im))
		}
	}
}
