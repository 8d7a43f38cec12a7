package docker

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	"github.com/docker/docker/errdefs"
)

// TestObjectToolDefs checks the definitions of docker_networks,
// docker_volumes and docker_cleanup.
func TestObjectToolDefs(t *testing.T) {
	tooltest.CheckFamilyIn(t, objectTools(), tool.CategoryDocker, tooltest.Group(groupObjects), "docker_networks", "docker_volumes", "docker_cleanup")
	for _, tl := range objectTools() {
		if tl.MaxRetries() != 0 {
			t.Errorf("%s: retried %d times after a worker death; its side effects must not happen twice", tl.Name, tl.MaxRetries())
		}
	}
}

// TestCleanupKinds checks which kinds docker_cleanup removes for the
// booleans given.
func TestCleanupKinds(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		given map[string]*bool
		want  []string
	}{
		{map[string]*bool{}, cleanKinds},
		{map[string]*bool{cleanImages: &yes}, []string{cleanImages}},
		{map[string]*bool{cleanImages: &yes, cleanContainers: &yes, cleanVolumes: &no}, []string{cleanContainers, cleanImages}},
		{map[string]*bool{cleanImages: &no}, []string{cleanContainers, cleanNetworks, cleanVolumes}},
		{map[string]*bool{cleanImages: &no, cleanContainers: &no, cleanVolumes: &no, cleanNetworks: &no}, nil},
	}
	for _, c := range cases {
		if got := kindsAsked(c.given); !slices.Equal(got, c.want) {
			t.Errorf("kindsAsked(%v) = %v, want %v", c.given, got, c.want)
		}
	}
}

// objCtx is the context of the tests' own Engine API calls.
func objCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// objStart creates a container of testImage running cmd, with
// labels (nil: none) on network ("": the default) and an anonymous volume
// at anon ("": none), starts it and returns its id; the test's end
// removes it, by force, with its anonymous volumes.
func objStart(t *testing.T, cli *client.Client, name string, labels map[string]string, netName, anon string, cmd ...string) string {
	t.Helper()
	ctx := objCtx(t)
	cfg := &container.Config{Image: testImage, Cmd: cmd, Labels: labels}
	if anon != "" {
		cfg.Volumes = map[string]struct{}{anon: {}}
	}
	host := &container.HostConfig{}
	if netName != "" {
		host.NetworkMode = container.NetworkMode(netName)
	}
	resp, err := cli.ContainerCreate(ctx, cfg, host, nil, nil, name)
	if err != nil {
		t.Fatalf("create container %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = cli.ContainerRemove(context.Background(), resp.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
	})
	if err := cli.ContainerStart(ctx, resp.ID, container.StartOptions{}); err != nil {
		t.Fatalf("start container %s: %v", name, err)
	}
	return resp.ID
}

// objStopped is objStart of `true`, waited for until it exits.
func objStopped(t *testing.T, cli *client.Client, name string) string {
	t.Helper()
	id := objStart(t, cli, name, nil, "", "", "true")
	waitC, errC := cli.ContainerWait(objCtx(t), id, container.WaitConditionNotRunning)
	select {
	case <-waitC:
	case err := <-errC:
		t.Fatalf("wait for %s: %v", name, err)
	}
	return id
}

// objRemoveLater removes a network and a volume of these names at the
// test's end, whatever the test did with them.
func objRemoveLater(t *testing.T, cli *client.Client, netName, volName string) {
	t.Cleanup(func() {
		if netName != "" {
			_ = cli.NetworkRemove(context.Background(), netName)
		}
		if volName != "" {
			_ = cli.VolumeRemove(context.Background(), volName, true)
		}
	})
}

// objExists reports whether the daemon still has the object inspect looks
// up; an error other than not-found fails the test.
func objExists(t *testing.T, what string, err error) bool {
	t.Helper()
	if err == nil {
		return true
	}
	if errdefs.IsNotFound(err) {
		return false
	}
	t.Fatalf("inspect %s: %v", what, err)
	return false
}

// objHasContainer reports whether the container id is still there.
func objHasContainer(t *testing.T, cli *client.Client, id string) bool {
	t.Helper()
	_, err := cli.ContainerInspect(objCtx(t), id)
	return objExists(t, "container "+id, err)
}

// objHasNetwork reports whether the network is still there.
func objHasNetwork(t *testing.T, cli *client.Client, name string) bool {
	t.Helper()
	_, err := cli.NetworkInspect(objCtx(t), name, network.InspectOptions{})
	return objExists(t, "network "+name, err)
}

// objHasVolume reports whether the volume is still there.
func objHasVolume(t *testing.T, cli *client.Client, name string) bool {
	t.Helper()
	_, err := cli.VolumeInspect(objCtx(t), name)
	return objExists(t, "volume "+name, err)
}

// objNames are the strings of a result's list: names of a removed kind, say.
func objNames(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// objRow is the row of a list answer whose name is name, or nil.
func objRow(rows any, name string) map[string]any {
	list, _ := rows.([]any)
	for _, r := range list {
		if m, ok := r.(map[string]any); ok && m["name"] == name {
			return m
		}
	}
	return nil
}

// TestNetworkLifecycle creates, lists, inspects and removes a network
// through docker_networks, and checks its refusals.
func TestNetworkLifecycle(t *testing.T) {
	s := session(t)
	cli := apiClient(t)
	name := uniq("bhtest-net")
	objRemoveLater(t, cli, name, "")

	for _, action := range []string{"create", "remove", "inspect"} {
		err := s.MustFail("docker_networks", `{"action":"`+action+`"}`, tool.CodeInvalidArgs)
		if !strings.Contains(err.Message, `"name"`) || !strings.Contains(err.Message, action) {
			t.Errorf("%s without a name: %q names neither the argument nor the action", action, err.Message)
		}
	}
	err := s.MustFail("docker_networks", `{"action":"remove","name":"x","driver":"bridge"}`, tool.CodeInvalidArgs)
	if !strings.Contains(err.Message, "driver") || !strings.Contains(err.Message, "create") {
		t.Errorf("driver with remove: %q", err.Message)
	}

	out := tooltest.Object(t, s.MustRun("docker_networks", `{"action":"create","name":"`+name+`","labels":{"purpose":"objects_test"},"internal":true}`))
	if out["name"] != name || out["id"] == "" {
		t.Fatalf("create answered %v", out)
	}
	s.MustFail("docker_networks", `{"action":"create","name":"`+name+`"}`, tool.CodeInvalidArgs)

	list := tooltest.Object(t, s.MustRun("docker_networks", `{"action":"list"}`))
	row := objRow(list["networks"], name)
	if row == nil {
		t.Fatalf("list does not show %s: %v", name, list)
	}
	if row["managed"] != true || row["driver"] != "bridge" || row["id"] != out["id"] || row["internal"] != true {
		t.Errorf("list row %v: want managed, bridge, internal, id %v", row, out["id"])
	}
	if bridge := objRow(list["networks"], "bridge"); bridge == nil || bridge["managed"] != false {
		t.Errorf("the default bridge: %v, want a row with managed false", bridge)
	}
	filtered := tooltest.Object(t, s.MustRun("docker_networks", `{"action":"list","name":"`+name+`"}`))
	if filtered["count"] != 1.0 {
		t.Errorf("list filtered by name: %v, want only %s", filtered, name)
	}

	id := objStart(t, cli, uniq("bhtest-member"), nil, name, "", "sleep", "600")
	insp := tooltest.Object(t, s.MustRun("docker_networks", `{"action":"inspect","name":"`+name+`"}`))
	if insp["name"] != name || insp["managed"] != true || insp["internal"] != true || insp["subnet"] == nil || insp["subnet"] == "" {
		t.Errorf("inspect: %v", insp)
	}
	labels := tooltest.Object(t, insp["labels"])
	if labels["purpose"] != "objects_test" || labels[Label] != labelValue {
		t.Errorf("inspect labels %v, want purpose and %s", labels, Label)
	}
	members, _ := insp["containers"].([]any)
	if len(members) != 1 {
		t.Fatalf("inspect containers %v, want the one started", insp["containers"])
	}
	m := tooltest.Object(t, members[0])
	if ip, _ := m["ipv4"].(string); ip == "" || strings.Contains(ip, "/") {
		t.Errorf("member %v: want its IPv4 address without the mask", m)
	}

	if _, err := s.Run("docker_networks", `{"action":"remove","name":"`+name+`"}`); err == nil {
		t.Error("remove of a network in use succeeded")
	} else {
		t.Logf("remove while in use: %s: %s", err.Code, err.Message)
	}
	if rerr := cli.ContainerRemove(objCtx(t), id, container.RemoveOptions{Force: true, RemoveVolumes: true}); rerr != nil {
		t.Fatal(rerr)
	}
	if got := tooltest.Object(t, s.MustRun("docker_networks", `{"action":"remove","name":"`+name+`"}`)); got["removed"] != name {
		t.Errorf("remove answered %v", got)
	}
	if objHasNetwork(t, cli, name) {
		t.Errorf("network %s is still there", name)
	}
	err = s.MustFail("docker_networks", `{"action":"inspect","name":"`+name+`"}`, tool.CodeNotFound)
	if !strings.Contains(err.Message, "docker_networks") {
		t.Errorf("not found: %q does not say what lists the networks", err.Message)
	}
}

// TestVolumeLifecycle creates, lists, inspects and removes a volume
// through docker_volumes, and checks its refusals.
func TestVolumeLifecycle(t *testing.T) {
	s := session(t)
	cli := apiClient(t)
	name := uniq("bhtest-vol")
	objRemoveLater(t, cli, "", name)

	for _, action := range []string{"create", "remove", "inspect"} {
		err := s.MustFail("docker_volumes", `{"action":"`+action+`"}`, tool.CodeInvalidArgs)
		if !strings.Contains(err.Message, `"name"`) || !strings.Contains(err.Message, action) {
			t.Errorf("%s without a name: %q names neither the argument nor the action", action, err.Message)
		}
	}
	s.MustFail("docker_volumes", `{"action":"create","name":"x","internal":true}`, tool.CodeInvalidArgs)
	s.MustFail("docker_volumes", `{"action":"create","name":"x","labels":{"n":1}}`, tool.CodeInvalidArgs)

	out := tooltest.Object(t, s.MustRun("docker_volumes", `{"action":"create","name":"`+name+`","labels":{"purpose":"objects_test"}}`))
	if out["name"] != name || out["driver"] != "local" || out["mountpoint"] == "" {
		t.Fatalf("create answered %v", out)
	}
	err := s.MustFail("docker_volumes", `{"action":"create","name":"`+name+`"}`, tool.CodeInvalidArgs)
	if !strings.Contains(err.Message, "exists") {
		t.Errorf("second create: %q does not say the volume exists", err.Message)
	}

	list := tooltest.Object(t, s.MustRun("docker_volumes", `{"action":"list"}`))
	row := objRow(list["volumes"], name)
	if row == nil {
		t.Fatalf("list does not show %s: %v", name, list)
	}
	if row["managed"] != true || row["driver"] != "local" || row["mountpoint"] != out["mountpoint"] {
		t.Errorf("list row %v", row)
	}

	insp := tooltest.Object(t, s.MustRun("docker_volumes", `{"action":"inspect","name":"`+name+`"}`))
	if insp["name"] != name || insp["managed"] != true || tooltest.Object(t, insp["labels"])["purpose"] != "objects_test" {
		t.Errorf("inspect: %v", insp)
	}
	if used := objNames(insp["usedBy"]); len(used) != 0 {
		t.Errorf("usedBy %v, want none", used)
	}

	if got := tooltest.Object(t, s.MustRun("docker_volumes", `{"action":"remove","name":"`+name+`"}`)); got["removed"] != name {
		t.Errorf("remove answered %v", got)
	}
	if objHasVolume(t, cli, name) {
		t.Errorf("volume %s is still there", name)
	}
	err = s.MustFail("docker_volumes", `{"action":"inspect","name":"`+name+`"}`, tool.CodeNotFound)
	if !strings.Contains(err.Message, "docker_volumes") {
		t.Errorf("not found: %q does not say what lists the volumes", err.Message)
	}
}

// TestCleanupManaged checks that docker_cleanup removes what carries the
// label, and only that, lists what it could not remove, and refuses all
// without confirm.
func TestCleanupManaged(t *testing.T) {
	s := exclusiveSession(t)
	cli := apiClient(t)
	ctx := objCtx(t)

	ourNet, ourVol, busyNet := uniq("bhtest-ournet"), uniq("bhtest-ourvol"), uniq("bhtest-busynet")
	theirNet, theirVol := uniq("bhtest-theirnet"), uniq("bhtest-theirvol")
	objRemoveLater(t, cli, ourNet, ourVol)
	objRemoveLater(t, cli, busyNet, theirVol)
	objRemoveLater(t, cli, theirNet, "")
	s.MustRun("docker_networks", `{"action":"create","name":"`+ourNet+`"}`)
	s.MustRun("docker_networks", `{"action":"create","name":"`+busyNet+`"}`)
	s.MustRun("docker_volumes", `{"action":"create","name":"`+ourVol+`"}`)
	if _, err := cli.NetworkCreate(ctx, theirNet, network.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.VolumeCreate(ctx, volume.CreateOptions{Name: theirVol}); err != nil {
		t.Fatal(err)
	}
	// Theirs runs on our busy network: that network cannot go.
	theirs := objStart(t, cli, uniq("bhtest-theirs"), nil, busyNet, "", "sleep", "600")
	ours := objStart(t, cli, uniq("bhtest-ours"), map[string]string{Label: labelValue}, "", "/data", "sleep", "600")
	ourInfo, err := cli.ContainerInspect(ctx, ours)
	if err != nil {
		t.Fatal(err)
	}
	anon := ""
	for _, m := range ourInfo.Mounts {
		if m.Destination == "/data" {
			anon = m.Name
		}
	}
	if anon == "" {
		t.Fatalf("our container has no anonymous volume at /data: %+v", ourInfo.Mounts)
	}

	// Two images as docker_build makes them (labelled): one, with two
	// tags, that nothing uses; one a stopped container not ours uses.
	freeImg, freeTag2, heldImg := uniq("bhtest-free")+":1", uniq("bhtest-free")+":2", uniq("bhtest-held")+":1"
	objLabelledImage(t, cli, theirs, freeImg)
	if err := cli.ImageTag(ctx, freeImg, freeTag2); err != nil {
		t.Fatal(err)
	}
	objLabelledImage(t, cli, theirs, heldImg)
	// A container inherits its image's labels: images carry BuiltLabel,
	// not Label, so the holder is not ours though its image is.
	holder, err := cli.ContainerCreate(ctx, &container.Config{Image: heldImg, Cmd: []string{"true"}}, nil, nil, nil, uniq("bhtest-holder"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cli.ContainerRemove(context.Background(), holder.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
		for _, ref := range []string{freeImg, freeTag2, heldImg} {
			_, _ = cli.ImageRemove(context.Background(), ref, image.RemoveOptions{Force: true})
		}
	})

	err2 := s.MustFail("docker_cleanup", `{"all":true}`, tool.CodeInvalidArgs)
	if !strings.Contains(err2.Message, "confirm") || !strings.Contains(err2.Message, "dryRun") {
		t.Errorf("all without confirm: %q does not say to add confirm (or dryRun)", err2.Message)
	}

	// A dry run of all lists ours and theirs that are unused, removes
	// nothing, and never lists a running container.
	dry := tooltest.Object(t, s.MustRun("docker_cleanup", `{"all":true,"dryRun":true}`))
	would := tooltest.Object(t, dry["wouldRemove"])
	if dry["removed"] != nil || dry["dryRun"] != true {
		t.Errorf("dry run answered %v", dry)
	}
	ourName := strings.TrimPrefix(ourInfo.Name, "/")
	for kind, want := range map[string][]string{
		cleanContainers: {ourName},
		cleanNetworks:   {ourNet, theirNet},
		cleanVolumes:    {ourVol, theirVol},
	} {
		got := objNames(would[kind])
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("dry run %s %v lacks %s", kind, got, w)
			}
		}
	}
	theirName := objContainerNameOf(t, cli, theirs)
	if got := objNames(would[cleanContainers]); slices.Contains(got, theirName) {
		t.Errorf("dry run lists %s, a running container not ours: %v", theirName, got)
	}
	if slices.Contains(objNames(would[cleanNetworks]), busyNet) {
		t.Errorf("dry run of all lists %s, a network in use", busyNet)
	}
	if errs := objNames(dry["errors"]); !slices.ContainsFunc(errs, func(e string) bool {
		return strings.Contains(e, busyNet) && strings.Contains(e, theirName)
	}) {
		t.Errorf("dry run errors %v, want one saying %s holds %s", errs, theirName, busyNet)
	}
	if !objHasContainer(t, cli, ours) || !objHasNetwork(t, cli, ourNet) || !objHasVolume(t, cli, ourVol) || !objHasNetwork(t, cli, theirNet) {
		t.Fatal("the dry run removed something")
	}

	out := tooltest.Object(t, s.MustRun("docker_cleanup", `{}`))
	t.Logf("cleanup: %s", tooltest.Marshal(out))
	removed := tooltest.Object(t, out["removed"])
	for kind, want := range map[string]string{cleanContainers: ourName, cleanNetworks: ourNet, cleanVolumes: ourVol} {
		if got := objNames(removed[kind]); !slices.Contains(got, want) {
			t.Errorf("removed %s %v lacks %s", kind, got, want)
		}
	}
	if _, ok := removed[cleanImages]; !ok {
		t.Errorf("removed has no images list: %v", removed)
	}
	for kind, not := range map[string]string{cleanContainers: theirName, cleanNetworks: theirNet, cleanVolumes: theirVol} {
		if got := objNames(removed[kind]); slices.Contains(got, not) {
			t.Errorf("removed %s %v includes %s, which BarrHawk did not create", kind, got, not)
		}
	}
	errs := objNames(out["errors"])
	if len(errs) != 2 || !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, busyNet) }) ||
		!slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, heldImg) }) {
		t.Errorf("errors %v, want two: %s (in use by a container not ours) and %s (the image of a container not ours)", errs, busyNet, heldImg)
	}
	if got := objNames(removed[cleanImages]); len(got) != 1 || got[0] != freeImg && got[0] != freeTag2 {
		t.Errorf("removed images %v, want %s", got, freeImg)
	}
	if _, err := cli.ImageInspect(ctx, freeTag2); objExists(t, "image "+freeTag2, err) {
		t.Errorf("image %s survived the cleanup", freeTag2)
	}
	if _, err := cli.ImageInspect(ctx, heldImg); !objExists(t, "image "+heldImg, err) {
		t.Errorf("image %s went, though a container not ours uses it", heldImg)
	}

	if objHasContainer(t, cli, ours) {
		t.Error("our container survived the cleanup")
	}
	if objHasVolume(t, cli, anon) {
		t.Errorf("the anonymous volume %s of our container survived the cleanup", anon)
	}
	if objHasNetwork(t, cli, ourNet) || objHasVolume(t, cli, ourVol) {
		t.Error("our network or volume survived the cleanup")
	}
	if !objHasContainer(t, cli, theirs) || !objHasNetwork(t, cli, theirNet) || !objHasVolume(t, cli, theirVol) {
		t.Error("the cleanup removed a container, network or volume BarrHawk did not create")
	}
	if !objHasNetwork(t, cli, busyNet) {
		t.Error("the network in use went")
	}
}

// TestCleanupAllContainers checks all with confirm on containers only: a
// stopped container not ours goes, a running one stays. It must not run in
// parallel with tests that keep stopped containers.
func TestCleanupAllContainers(t *testing.T) {
	s := exclusiveSession(t)
	cli := apiClient(t)
	stopped := objStopped(t, cli, uniq("bhtest-stopped"))
	running := objStart(t, cli, uniq("bhtest-running"), nil, "", "", "sleep", "600")
	stoppedName := objContainerNameOf(t, cli, stopped)

	out := tooltest.Object(t, s.MustRun("docker_cleanup", `{"all":true,"confirm":true,"containers":true}`))
	t.Logf("cleanup: %s", tooltest.Marshal(out))
	removed := tooltest.Object(t, out["removed"])
	if got := objNames(removed[cleanContainers]); !slices.Contains(got, stoppedName) {
		t.Errorf("removed containers %v lacks %s", got, stoppedName)
	}
	for _, kind := range []string{cleanImages, cleanNetworks, cleanVolumes} {
		if _, ok := removed[kind]; ok {
			t.Errorf("removed %s, which was not asked for: %v", kind, removed)
		}
	}
	if objHasContainer(t, cli, stopped) {
		t.Error("the stopped container survived all: true")
	}
	if !objHasContainer(t, cli, running) {
		t.Error("all: true removed a running container not ours")
	}
}

// objContainerNameOf is the name of the container id, without its slash.
func objContainerNameOf(t *testing.T, cli *client.Client, id string) string {
	t.Helper()
	info, err := cli.ContainerInspect(objCtx(t), id)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(info.Name, "/")
}

// objLabelledImage commits the container id as the image ref, labelled
// as docker_build labels what it builds.
func objLabelledImage(t *testing.T, cli *client.Client, id, ref string) {
	t.Helper()
	if _, err := cli.ContainerCommit(objCtx(t), id, container.CommitOptions{Reference: ref, Config: &container.Config{Labels: map[string]string{BuiltLabel: labelValue}}}); err != nil {
		t.Fatalf("commit %s: %v", ref, err)
	}
}
