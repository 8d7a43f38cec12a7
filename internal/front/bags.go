package front

import (
	"context"
	"sync"

	"github.com/barrhawk/barrhawk/internal/doctor"
	"github.com/barrhawk/barrhawk/internal/toolbag"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionBags holds each session's list bag (package toolbag): what its
// tools/list shows, with what a call of the session carries of it.
type sessionBags struct {
	mu sync.Mutex
	m  map[*mcp.ServerSession]*toolbag.Session
}

// bagOf returns the session's bag, made from tools.listProfile on first
// use and forgotten when the session ends.
func (s *Server) bagOf(ss *mcp.ServerSession) *toolbag.Bag { return s.bagSession(ss).Bag }

// bagSession returns the session's bag as its calls carry it
// (toolbag.With): made once per session, not once per call.
func (s *Server) bagSession(ss *mcp.ServerSession) *toolbag.Session {
	s.bags.mu.Lock()
	defer s.bags.mu.Unlock()
	if s.bags.m == nil {
		s.bags.m = map[*mcp.ServerSession]*toolbag.Session{}
	}
	if b, ok := s.bags.m[ss]; ok {
		return b
	}
	b := &toolbag.Session{Bag: s.doctor.NewBag(), Changed: s.toolListChanged}
	s.bags.m[ss] = b
	go func() {
		_ = ss.Wait()
		s.forgetBag(ss)
	}()
	return b
}

// forgetBag releases the bag of a session that has ended. (An HTTP
// session's end calls it too, when the session table sees it: see
// httpSessions.watch.)
func (s *Server) forgetBag(ss *mcp.ServerSession) {
	s.bags.mu.Lock()
	delete(s.bags.m, ss)
	s.bags.mu.Unlock()
}

// filterToolsList shows a session only the tools in its list bag.
func (s *Server) filterToolsList(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "tools/list" || err != nil {
			return res, err
		}
		list, ok := res.(*mcp.ListToolsResult)
		ss, _ := req.GetSession().(*mcp.ServerSession)
		if !ok || ss == nil {
			return res, err
		}
		bag := s.bagOf(ss)
		kept := list.Tools[:0:0]
		for _, t := range list.Tools {
			rt, _ := s.doctor.Registry().Get(t.Name)
			if bag.Shows(t.Name, rt != nil && doctor.IsDynamic(rt)) {
				kept = append(kept, t)
			}
		}
		list.Tools = kept
		return list, nil
	}
}

// toolListChanged tells clients their tool list changed. The SDK notifies
// every session or none, so one tool is registered again as it is: other
// sessions list again and find theirs unchanged.
func (s *Server) toolListChanged() {
	s.mu.RLock()
	mt, h := s.tools["tool_bag"], s.handlers["tool_bag"]
	s.mu.RUnlock()
	if mt != nil && h != nil {
		s.mcp.AddTool(mt, h)
	}
}
