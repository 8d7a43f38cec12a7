//go:build linux

package testbin

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestBusyboxImage finds a daemon and builds (or finds) the busybox image
// on it: the daemon then describes the image.
func TestBusyboxImage(t *testing.T) {
	host := DockerHost(t)
	if again := DockerHost(t); again != host {
		t.Fatalf("DockerHost: %s, then %s", host, again)
	}
	const tag = "barrhawk-testbin-busybox:latest"
	if got := BusyboxImage(t, host, tag); got != tag {
		t.Fatalf("BusyboxImage = %q, want %q", got, tag)
	}
	status, body, err := dockerGet(host, "/images/"+tag+"/json")
	if err != nil {
		t.Fatal(err)
	}
	if status != http.StatusOK {
		t.Fatalf("GET /images/%s/json: %d %s", tag, status, body)
	}
	var img struct {
		ID     string `json:"Id"`
		Config struct{ Cmd []string }
	}
	if err := json.Unmarshal(body, &img); err != nil {
		t.Fatalf("GET /images/%s/json: %v\n%s", tag, err, body)
	}
	if img.ID == "" {
		t.Fatalf("GET /images/%s/json: no Id\n%s", tag, body)
	}
	if len(img.Config.Cmd) != 1 || img.Config.Cmd[0] != "/bin/sh" {
		t.Errorf("the image's command is %q, want [/bin/sh]", img.Config.Cmd)
	}
}

// TestStaticBusyboxDynamic: a dynamically linked executable (Debian's
// /bin/ls) is refused, naming busybox-static; busybox-static's is taken.
func TestStaticBusyboxDynamic(t *testing.T) {
	err := staticBusybox("/bin/ls")
	if err == nil || !strings.Contains(err.Error(), "busybox-static") {
		t.Fatalf("staticBusybox(/bin/ls) = %v, want an error naming busybox-static", err)
	}
	if err := staticBusybox("/bin/busybox"); err != nil {
		t.Fatal(err)
	}
}
