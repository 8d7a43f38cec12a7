package doctor

import (
	"context"
	"strconv"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/wire"
)

// What each Igor loads: its built-in tool bag (igors.toolBag, narrowed by
// its lane's) and the dynamic tools, which the pool sends to every Igor,
// present and future.

// toolBag is what ig loads: its lane's bag within igors.toolBag.
func (p *Pool) toolBag(ig *igorConn) []string {
	if ig.lane == nil || len(ig.lane.ToolBag) == 0 {
		return p.opts.Igors.ToolBag
	}
	if len(p.opts.Igors.ToolBag) == 0 {
		return ig.lane.ToolBag
	}
	var out []string
	for _, name := range ig.lane.ToolBag {
		if tool.MatchAny(p.opts.Igors.ToolBag, name) {
			out = append(out, name)
		}
	}
	return orNone(out)
}

// dynamicBag is what an Igor sends dynamic tools through: nil (its tool
// bag) but in a lane whose dynamic tools the front routes itself, where
// only igors.toolBag may narrow them.
func (p *Pool) dynamicBag(ig *igorConn) []string {
	if ig.lane == nil || !ig.lane.RoutesDynamic {
		return nil
	}
	if len(p.opts.Igors.ToolBag) == 0 {
		return []string{"*"}
	}
	return p.opts.Igors.ToolBag
}

// UpdateDynamic makes set the dynamic tools of every Igor, present and
// future, and returns how one Igor loaded them. With describeOnly, the set
// is only loaded by one Igor to report its metadata and errors, and nothing
// changes.
func (p *Pool) UpdateDynamic(ctx context.Context, set []wire.DynamicTool, describeOnly bool, timeout time.Duration) ([]wire.LoadedTool, error) {
	if set == nil {
		set = []wire.DynamicTool{}
	}
	var others []*igorConn
	if !describeOnly {
		p.mu.Lock()
		p.dynamic = set
		for ig := range p.all {
			if ig.enc != nil && ig.state != stateStopping && ig.state != stateDead {
				others = append(others, ig)
			}
		}
		p.mu.Unlock()
	}
	ig, terr := p.acquire(ctx, "tools_update", anyLane, nil, timeout)
	if terr != nil {
		return nil, terr
	}
	id := "u" + strconv.FormatUint(p.seq.Add(1), 10)
	ch := make(chan reply, 1)
	if !ig.await(id, func(r reply) { ch <- r }) {
		p.release(ig, reply{died: true})
		return nil, tool.Errorf(tool.CodeWorkerDied, "the Igor loading the dynamic tools died")
	}
	for _, o := range others {
		if o != ig {
			_ = o.enc.Encode(wire.ToolsUpdate{Type: wire.TypeToolsUpdate, DynamicTools: set}) // a dying Igor is replaced with the new set
		}
	}
	r := func() reply {
		if err := ig.enc.Encode(wire.ToolsUpdate{Type: wire.TypeToolsUpdate, ID: id, DynamicTools: set, Describe: describeOnly}); err != nil {
			return reply{died: true, reason: err.Error()}
		}
		t := time.NewTimer(timeout)
		defer t.Stop()
		select {
		case r := <-ch:
			return r
		case <-ctx.Done():
			return reply{died: true, reason: ctx.Err().Error()}
		case <-t.C:
			return reply{died: true, reason: "no answer within " + timeout.String()}
		}
	}()
	ig.take(id)
	p.release(ig, reply{env: &wire.Envelope{Status: wire.StatusSuccess}, died: r.died})
	if r.died {
		return nil, tool.Errorf(tool.CodeWorkerDied, "loading the dynamic tools: %s", r.reason)
	}
	if r.env.Error != nil {
		return nil, r.env.Error
	}
	return r.env.Loaded, nil
}

// hasDynamic reports whether the Igors are given any dynamic tools.
func (p *Pool) hasDynamic() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.dynamic) > 0
}
