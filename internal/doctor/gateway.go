package doctor

import (
	"context"

	"github.com/barrhawk/barrhawk/internal/gateway"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// The MCP gateway (package gateway) lives in the front beside the Igor
// pool: its upstreams' tools are registry entries the front answers by
// calling the upstream, which runs in a process of its own.

// newGateway builds the hub of gateway.servers and the registered
// upstreams; their tools enter the registry as they become known.
func (d *Doctor) newGateway() *gateway.Hub {
	return gateway.New(gateway.Options{
		Config: d.cfg.Gateway, Results: d.results, Log: d.log,
		Emit: func(typ, server, reason string) {
			d.events.Emit(Event{Type: typ, Server: server, Reason: reason})
		},
		OnTools: func(remove []string, add []tool.Tool) {
			if err := d.reg.Swap(remove, add); err != nil {
				d.log.Warn("registering upstream tools", "err", err)
			}
			var added []*tool.Tool
			for _, t := range add {
				if rt, ok := d.reg.Get(t.Name); ok {
					added = append(added, rt)
				}
			}
			var removed []string
			for _, n := range remove {
				if _, still := d.reg.Get(n); !still {
					removed = append(removed, n)
				}
			}
			d.toolsChanged(added, removed)
		},
	})
}

// Gateway is the MCP gateway, or nil when gateway.enabled is off.
func (d *Doctor) Gateway() *gateway.Hub { return d.gateway }

// searchGateway ranks the upstreams' tools for a request in words.
func (d *Doctor) searchGateway(query string, limit int) []string {
	var names []string
	for _, h := range d.Search(query, limit, tool.CategoryGateway) {
		if _, _, ok := d.gateway.Route(h.Tool.Name); ok {
			names = append(names, h.Tool.Name)
		}
	}
	return names
}

// AwaitTool waits, within ctx, for a tool that may be about to appear: a
// gateway upstream's whose first start is under way. It reports whether
// the registry has the tool now.
func (d *Doctor) AwaitTool(ctx context.Context, name string) bool {
	if d.gateway == nil || !d.gateway.AwaitTools(ctx, name) {
		return false
	}
	_, ok := d.reg.Get(name)
	return ok
}
