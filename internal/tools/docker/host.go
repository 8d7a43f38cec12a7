package docker

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/docker/docker/client"
)

// endpoint is a daemon's address and where it was found, for messages.
type endpoint struct {
	Host string
	From string
	// TLSDir holds ca.pem, cert.pem and key.pem for a TLS endpoint ("" for
	// none).
	TLSDir string
}

// defaultHost is where the daemon listens when nothing says otherwise.
const defaultHost = "unix:///var/run/docker.sock"

// findDaemon finds the daemon as the docker CLI does: the docker.host
// setting, then DOCKER_HOST, then the context DOCKER_CONTEXT names or the
// config file's currentContext, then the default socket.
func findDaemon(configured string) (endpoint, error) {
	if configured != "" {
		return checkHost(endpoint{Host: configured, From: "the docker.host setting"})
	}
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		ep := endpoint{Host: h, From: "DOCKER_HOST"}
		if os.Getenv("DOCKER_TLS_VERIFY") != "" || os.Getenv("DOCKER_CERT_PATH") != "" {
			ep.TLSDir = os.Getenv("DOCKER_CERT_PATH")
			if ep.TLSDir == "" {
				ep.TLSDir = configDir()
			}
		}
		return checkHost(ep)
	}
	name, from := os.Getenv("DOCKER_CONTEXT"), "DOCKER_CONTEXT"
	if name == "" {
		name, from = currentContext(), "the current context in "+filepath.Join(configDir(), "config.json")
	}
	if name != "" && name != "default" {
		ep, err := contextEndpoint(name)
		if err != nil {
			return endpoint{}, tool.Errorf(tool.CodeConnectionFailed, "docker context %q (from %s): %v; `docker context ls` lists the contexts, `docker context use default` goes back to the local daemon", name, from, err)
		}
		ep.From = fmt.Sprintf("context %q, from %s", name, from)
		return checkHost(ep)
	}
	return endpoint{Host: defaultHost, From: "the default socket: no DOCKER_HOST and no docker context set"}, nil
}

// checkHost refuses what the Go client cannot reach: ssh:// needs the
// docker CLI's connection helper.
func checkHost(ep endpoint) (endpoint, error) {
	if strings.HasPrefix(ep.Host, "ssh://") {
		return ep, tool.Errorf(tool.CodeConnectionFailed, "Docker daemon %s (%s): ssh:// hosts need the docker CLI's ssh helper, which BarrHawk does not run; forward the socket (ssh -L /tmp/docker.sock:/var/run/docker.sock host) and use unix:///tmp/docker.sock", ep.Host, ep.From)
	}
	if _, err := client.ParseHostURL(ep.Host); err != nil {
		return ep, tool.Errorf(tool.CodeConnectionFailed, "Docker daemon %q (%s) is not an address: %v; write unix:///path/to/docker.sock or tcp://host:2376", ep.Host, ep.From, err)
	}
	return ep, nil
}

// client makes a client of the endpoint, negotiating the API version with
// the daemon as the CLI does.
func (ep endpoint) client() (*client.Client, error) {
	opts := []client.Opt{client.WithHost(ep.Host), client.WithAPIVersionNegotiation()}
	if ep.TLSDir != "" {
		opts = append(opts, client.WithTLSClientConfig(
			filepath.Join(ep.TLSDir, "ca.pem"), filepath.Join(ep.TLSDir, "cert.pem"), filepath.Join(ep.TLSDir, "key.pem")))
	}
	return client.NewClientWithOpts(opts...)
}

// configDir is the docker CLI's configuration directory: DOCKER_CONFIG or
// ~/.docker.
func configDir() string {
	if d := os.Getenv("DOCKER_CONFIG"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".docker"
	}
	return filepath.Join(home, ".docker")
}

// cliConfig is what we read of the CLI's config.json.
type cliConfig struct {
	CurrentContext string                `json:"currentContext"`
	Auths          map[string]authConfig `json:"auths"`
	CredsStore     string                `json:"credsStore"`
	CredHelpers    map[string]string     `json:"credHelpers"`
}

type authConfig struct {
	Auth          string `json:"auth"`
	Username      string `json:"username"`
	Password      string `json:"password"`
	IdentityToken string `json:"identitytoken"`
}

// readCLIConfig reads config.json; a missing file is an empty config.
func readCLIConfig() (cliConfig, error) {
	var c cliConfig
	b, err := os.ReadFile(filepath.Join(configDir(), "config.json"))
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%s: %w", filepath.Join(configDir(), "config.json"), err)
	}
	return c, nil
}

func currentContext() string {
	c, err := readCLIConfig()
	if err != nil {
		return ""
	}
	return c.CurrentContext
}

// contextEndpoint reads a context's docker endpoint from the CLI's context
// store: contexts/meta/<sha256 of the name>/meta.json, and its TLS files
// under contexts/tls/<same>/docker.
func contextEndpoint(name string) (endpoint, error) {
	sum := sha256.Sum256([]byte(name))
	id := hex.EncodeToString(sum[:])
	path := filepath.Join(configDir(), "contexts", "meta", id, "meta.json")
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return endpoint{}, fmt.Errorf("no such context (%s is missing)", path)
		}
		return endpoint{}, err
	}
	var meta struct {
		Endpoints map[string]struct {
			Host string `json:"Host"`
		} `json:"Endpoints"`
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return endpoint{}, fmt.Errorf("%s: %w", path, err)
	}
	d, ok := meta.Endpoints["docker"]
	if !ok || d.Host == "" {
		return endpoint{}, fmt.Errorf("%s has no docker endpoint", path)
	}
	ep := endpoint{Host: d.Host}
	tlsDir := filepath.Join(configDir(), "contexts", "tls", id, "docker")
	if _, err := os.Stat(filepath.Join(tlsDir, "ca.pem")); err == nil {
		ep.TLSDir = tlsDir
	}
	return ep, nil
}
