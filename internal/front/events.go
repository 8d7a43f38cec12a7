package front

import (
	"context"
	"time"

	"github.com/barrhawk/barrhawk/internal/doctor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// forwardEvents sends the Doctor's events to every session as MCP log
// notifications (logger "barrhawk.events"); the SDK sends them only to a
// session that asked with logging/setLevel, at or above its level. The
// bus must not wait for slow clients: events past a backlog of 256 are
// dropped here (events_recent still has them).
func (s *Server) forwardEvents() {
	ch := make(chan doctor.Event, 256)
	s.doctor.Events().Subscribe(func(ev doctor.Event) {
		select {
		case ch <- ev:
		default:
		}
	})
	go func() {
		for ev := range ch {
			level := mcp.LoggingLevel("info")
			switch ev.Type {
			case doctor.EventTaskStarted, doctor.EventTaskCompleted, doctor.EventTaskQueued:
				level = "debug"
			case doctor.EventIgorCrashed, doctor.EventTaskFailed, doctor.EventToolBroken:
				level = "warning"
			}
			for ss := range s.mcp.Sessions() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: "barrhawk.events", Data: ev}) // a gone client is not an error here
				cancel()
			}
		}
	}()
}
