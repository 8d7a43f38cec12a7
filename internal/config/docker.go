package config

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Docker configures the Docker and Compose tools (docker_*, compose_*).
type Docker struct {
	// Host is the daemon to use, as DOCKER_HOST is written
	// (unix:///var/run/docker.sock, tcp://host:2376). Empty: as the docker
	// CLI finds it (DOCKER_HOST, the current context, the default socket).
	Host string `koanf:"host"`
	// AllowPrivileged lets docker_run start privileged containers, share
	// the host's network, pid or ipc namespace, add capabilities or
	// devices, and mount the Docker socket. Default false.
	AllowPrivileged bool `koanf:"allowPrivileged"`
	// AllowedMounts are host directories bind mounts may come from, besides
	// tools.roots (the allowed roots). Absolute paths.
	AllowedMounts []string `koanf:"allowedMounts"`
	// Compose is the compose command: "docker compose" or "docker-compose"
	// (or a path to either). Empty: the first of them that answers.
	Compose string `koanf:"compose"`
}

// validateDocker checks the docker section.
func (c *Config) validateDocker(bad func(key, format string, a ...any)) {
	d := c.Docker
	if d.Host != "" && !strings.Contains(d.Host, "://") {
		bad("docker.host", "%q is not an address; write unix:///var/run/docker.sock or tcp://host:2376", d.Host)
	}
	for i, m := range d.AllowedMounts {
		if !filepath.IsAbs(m) {
			bad(fmt.Sprintf("docker.allowedMounts[%d]", i), "%q is not an absolute path; write the host directory in full, such as /srv/fixtures", m)
		}
	}
}
