package docker

import (
	"encoding/base64"
	"strings"

	"github.com/distribution/reference"
	"github.com/docker/docker-credential-helpers/client"
	"github.com/docker/docker/api/types/registry"
)

// indexServer is the key the docker CLI stores Docker Hub's credentials
// under.
const indexServer = "https://index.docker.io/v1/"

// registryOf is the registry an image reference pulls from, as the CLI
// keys its credentials: Docker Hub's index URL, else the host.
func registryOf(ref string) string {
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return ""
	}
	domain := reference.Domain(named)
	if domain == "docker.io" || domain == "index.docker.io" {
		return indexServer
	}
	return domain
}

// registryAuth is the user's credentials for the registry of ref, from
// their Docker config (config.json's auths, credHelpers or credsStore, as
// the docker CLI reads them), encoded for the Engine API; "" when there
// are none. The credentials go to the daemon only: they are never in a
// result, a message or a log.
func registryAuth(ref string) string {
	server := registryOf(ref)
	if server == "" {
		return ""
	}
	cfg, err := readCLIConfig()
	if err != nil {
		return ""
	}
	ac, ok := fromHelper(cfg, server)
	if !ok {
		ac, ok = fromAuths(cfg, server)
	}
	if !ok {
		return ""
	}
	enc, err := registry.EncodeAuthConfig(ac)
	if err != nil {
		return ""
	}
	return enc
}

// fromHelper asks the credential helper configured for server (credHelpers,
// else credsStore): docker-credential-<name> on PATH.
func fromHelper(cfg cliConfig, server string) (registry.AuthConfig, bool) {
	helper := cfg.CredHelpers[strings.TrimPrefix(server, "https://")]
	if helper == "" {
		helper = cfg.CredHelpers[server]
	}
	if helper == "" {
		helper = cfg.CredsStore
	}
	if helper == "" {
		return registry.AuthConfig{}, false
	}
	creds, err := client.Get(client.NewShellProgramFunc("docker-credential-"+helper), server)
	if err != nil || creds == nil || creds.Secret == "" {
		return registry.AuthConfig{}, false
	}
	ac := registry.AuthConfig{ServerAddress: server}
	if creds.Username == "<token>" {
		ac.IdentityToken = creds.Secret
	} else {
		ac.Username, ac.Password = creds.Username, creds.Secret
	}
	return ac, true
}

// fromAuths reads config.json's auths entry for server (under its URL or
// its bare host).
func fromAuths(cfg cliConfig, server string) (registry.AuthConfig, bool) {
	for key, a := range cfg.Auths {
		host := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(key, "https://"), "http://"), "/")
		if key != server && host != server && !(server == indexServer && strings.HasPrefix(host, "index.docker.io")) {
			continue
		}
		ac := registry.AuthConfig{ServerAddress: server, Username: a.Username, Password: a.Password, IdentityToken: a.IdentityToken}
		if a.Auth != "" {
			if b, err := base64.StdEncoding.DecodeString(a.Auth); err == nil {
				if u, p, ok := strings.Cut(string(b), ":"); ok {
					ac.Username, ac.Password = u, p
				}
			}
		}
		return ac, ac.Username != "" || ac.IdentityToken != ""
	}
	return registry.AuthConfig{}, false
}
