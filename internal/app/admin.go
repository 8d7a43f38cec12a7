package app

import (
	"context"
	"encoding/json"

	"github.com/barrhawk/barrhawk/internal/admin"
	"github.com/barrhawk/barrhawk/internal/doctor"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// adminBackend answers the Beta HTTP admin API from the Doctor.
type adminBackend struct {
	d        *doctor.Doctor
	shutdown func()
}

func (b *adminBackend) Health() admin.Health {
	h := b.d.Health()
	return admin.Health{
		Status: h.Status, Uptime: h.Uptime, ToolCount: h.ToolCount, LastError: h.LastError,
		MemoryUsage: admin.MemoryUsage{HeapUsed: h.MemoryUsage.HeapUsed, HeapTotal: h.MemoryUsage.HeapTotal},
	}
}

func (b *adminBackend) Tools() []admin.ToolInfo {
	var out []admin.ToolInfo
	for _, t := range b.d.Registry().List() {
		schema, _ := t.InputJSON() // validated at registration
		out = append(out, admin.ToolInfo{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	return out
}

func (b *adminBackend) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, *tool.Error) {
	if _, ok := b.d.Registry().Get(name); !ok {
		return nil, b.d.UnknownTool(name)
	}
	r := b.d.Call(ctx, name, args)
	return r.Value, r.Err
}

func (b *adminBackend) Reload(ctx context.Context) ([]string, error) { return b.d.Reload(ctx) }

func (b *adminBackend) DeleteTool(ctx context.Context, name string) error {
	return b.d.DeleteTool(ctx, name)
}

func (b *adminBackend) Shutdown() { b.shutdown() }
