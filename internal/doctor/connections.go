package doctor

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// Connections an agent opens under an alias (a database, a GitHub token)
// live in the Igor that opened them, and die with it. The front notes
// which Igor opened each alias; when that Igor dies, a later call naming
// the alias is told that its connection died with the Igor, when and why,
// and how to open it again, instead of only that none is open.

// connFamily is one kind of aliased connection: the prefix of its tools,
// the tool that opens one and the one that closes it.
type connFamily struct{ prefix, open, close string }

var connFamilies = []connFamily{
	{"db_pg_", "db_pg_connect", "db_pg_disconnect"},
	{"db_sqlite_", "db_sqlite_open", "db_sqlite_close"},
	{"db_redis_", "db_redis_connect", "db_redis_disconnect"},
	{"gh_", "gh_connect", "gh_disconnect"},
}

// lostConn is how a connection was lost.
type lostConn struct {
	igor, reason string
	at           time.Time
}

// connections tracks the open aliases per Igor, and those lost with one.
type connections struct {
	mu   sync.Mutex
	open map[string]string   // open tool + alias → the Igor holding it
	lost map[string]lostConn // open tool + alias → how it was lost
}

func newConnections() *connections {
	return &connections{open: map[string]string{}, lost: map[string]lostConn{}}
}

// familyOf is the connection family of a tool, or nil.
func familyOf(name string) *connFamily {
	for i := range connFamilies {
		if strings.HasPrefix(name, connFamilies[i].prefix) {
			return &connFamilies[i]
		}
	}
	return nil
}

// after notes what a call of name on igor did to its family's aliases,
// and returns its error, explained when the alias died with an Igor.
func (c *connections) after(name string, args json.RawMessage, igor string, err *tool.Error) *tool.Error {
	f := familyOf(name)
	if f == nil {
		return err
	}
	var a struct {
		Alias string `json:"alias"`
	}
	_ = json.Unmarshal(args, &a) // validated against the tool's schema already
	if a.Alias == "" {
		a.Alias = "default"
	}
	key := f.open + "\x00" + a.Alias
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case err == nil && name == f.open:
		c.open[key] = igor
		delete(c.lost, key)
	case err == nil && name == f.close:
		delete(c.open, key)
		delete(c.lost, key)
	case err != nil && err.Code == tool.CodeNotFound && strings.Contains(err.Message, "connection "+strconv.Quote(a.Alias)):
		if l, ok := c.lost[key]; ok {
			return tool.Errorf(tool.CodeNotFound, "connection %q died with its Igor (%s, %s at %s): connections live in the Igor that opened them. Open it again with %s (alias %q), then repeat this call",
				a.Alias, l.igor, l.reason, l.at.Format(time.TimeOnly), f.open, a.Alias)
		}
	}
	return err
}

// died moves the aliases igor held to the lost ones.
func (c *connections) died(igor, reason string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, holder := range c.open {
		if holder == igor {
			c.lost[key] = lostConn{igor: igor, reason: reason, at: at}
			delete(c.open, key)
		}
	}
}

// onEvent follows the Igors' deaths on the event bus.
func (c *connections) onEvent(ev Event) {
	if (ev.Type == EventIgorCrashed || ev.Type == EventIgorTerminated) && ev.Igor != "" {
		c.died(ev.Igor, ev.Reason, ev.Time)
	}
}
