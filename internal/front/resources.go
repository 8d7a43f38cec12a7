package front

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/barrhawk/barrhawk/internal/doctor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resources: what the front serves besides tools. The dynamic tools'
// sources and the snapshots of them are resources, so that an agent (or
// its user) can read the code behind a tool before calling it, and see
// what a rollback would restore. The list follows the files: after a
// reload, a create, a delete, a rollback or a new snapshot the front
// updates it, and the SDK sends notifications/resources/list_changed.
const (
	toolSourcePrefix = "barrhawk://dynamic-tools/"
	snapshotPrefix   = "barrhawk://snapshots/"
)

// resourceSet is the resources registered with the SDK, by URI.
type resourceSet struct {
	mu   sync.Mutex
	uris map[string]*mcp.Resource
}

// syncResources makes the registered resources match the dynamic tools'
// files and snapshots. It holds the set's lock from listing to
// registering: two syncs that overlapped could otherwise apply an older
// listing after a newer one, leaving a deleted tool listed.
func (s *Server) syncResources() {
	s.res.mu.Lock()
	defer s.res.mu.Unlock()
	want := map[string]*mcp.Resource{}
	files, err := s.doctor.DynamicToolFiles()
	filesListed := err == nil
	if err != nil {
		s.log.Warn("listing dynamic tools for resources; keeping the sources listed before", "err", err)
	}
	for _, f := range files {
		file := f.Name + f.Ext
		mime := "text/typescript"
		if f.Ext == ".js" {
			mime = "text/javascript"
		}
		want[toolSourcePrefix+file] = &mcp.Resource{
			URI: toolSourcePrefix + file, Name: file, MIMEType: mime, Size: f.Size,
			Description: "Source of the dynamic tool " + f.Name + " (" + f.Path + ")",
		}
	}
	snaps, err := s.doctor.Snapshots()
	snapsListed := err == nil
	if err != nil {
		s.log.Warn("listing snapshots for resources; keeping the snapshots listed before", "err", err)
	}
	for _, sn := range snaps {
		want[snapshotPrefix+sn.ID] = &mcp.Resource{
			URI: snapshotPrefix + sn.ID, Name: "snapshot " + sn.ID, MIMEType: "application/json",
			Description: fmt.Sprintf("Snapshot %s of the dynamic tools: %d files with their SHA-256; worker_rollback {snapshot: %q} restores it", sn.ID, sn.ToolCount, sn.ID),
		}
	}

	var gone []string
	for uri := range s.res.uris {
		listed := filesListed
		if strings.HasPrefix(uri, snapshotPrefix) {
			listed = snapsListed
		}
		if want[uri] == nil && listed {
			gone = append(gone, uri)
			delete(s.res.uris, uri)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveResources(gone...)
	}
	for uri, r := range want {
		// A source edited in place changes size: register it again, so
		// that resources/list shows the new one.
		if old := s.res.uris[uri]; old == nil || old.Size != r.Size || old.Description != r.Description {
			s.mcp.AddResource(r, s.readResource)
			s.res.uris[uri] = r
		}
	}
}

// readResource serves one resource.
func (s *Server) readResource(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	switch {
	case strings.HasPrefix(uri, toolSourcePrefix):
		file := strings.TrimPrefix(uri, toolSourcePrefix)
		src, err := s.doctor.DynamicToolSource(file)
		if err != nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		mime := "text/typescript"
		if strings.HasSuffix(file, ".js") {
			mime = "text/javascript"
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: src}}}, nil
	case strings.HasPrefix(uri, snapshotPrefix):
		meta, err := s.doctor.SnapshotMetadata(strings.TrimPrefix(uri, snapshotPrefix))
		if err != nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(meta)}}}, nil
	}
	return nil, mcp.ResourceNotFoundError(uri)
}

// Ready brings the resources up to date once the Doctor has started (the
// initial snapshot taken, the dynamic tools loaded), before the front
// serves: the event of the initial snapshot syncs them in the background,
// and a client that lists at once would miss it.
func (s *Server) Ready() {
	if s.doctor.DynamicEnabled() {
		s.syncResources()
	}
}

// watchResources keeps the resources in step with the Doctor's events.
func (s *Server) watchResources() {
	s.res.uris = map[string]*mcp.Resource{}
	s.doctor.Events().Subscribe(func(ev doctor.Event) {
		switch ev.Type {
		case doctor.EventToolsReloaded, doctor.EventSnapshotTaken:
			go s.syncResources() // subscribers must not block the bus
		}
	})
	s.syncResources()
}
