package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/doctor"
	"github.com/barrhawk/barrhawk/internal/record"
)

// clientBacklog is how many messages a slow page may fall behind before it
// is told it lagged (and refetches) instead of being waited for: the event
// bus and the recorder never wait for a browser.
const clientBacklog = 512

// keepAlive is how often an idle stream gets a comment line, so that
// proxies and the browser keep it open.
const keepAlive = 15 * time.Second

// hub fans the live messages out to every open page.
type hub struct {
	mu      sync.Mutex
	clients map[chan []byte]struct{}
}

func newHub() *hub { return &hub{clients: map[chan []byte]struct{}{}} }

// follow feeds the hub from the bus, the record and the jobs.
func (h *hub) follow(d *doctor.Doctor, rec *record.Recorder, jobs *JobWatch) {
	d.Events().Subscribe(func(ev doctor.Event) { h.send("bus", ev) })
	rec.Subscribe(func(l record.Live) { h.send(l.Kind, l.Data) })
	if jobs != nil {
		jobs.Subscribe(func(j Job) { h.send("job", j) })
	}
}

// send encodes a message once and offers it to every page.
func (h *hub) send(event string, v any) {
	h.mu.Lock()
	n := len(h.clients)
	h.mu.Unlock()
	if n == 0 {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	msg := fmt.Appendf(nil, "event: %s\ndata: %s\n\n", event, data)
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
		select {
		case c <- msg:
		default: // this page is behind: it will be told, and refetch
		}
	}
}

func (h *hub) join() chan []byte {
	c := make(chan []byte, clientBacklog)
	h.mu.Lock()
	h.clients[c] = struct{}{}
	h.mu.Unlock()
	return c
}

func (h *hub) leave(c chan []byte) {
	h.mu.Lock()
	delete(h.clients, c)
	h.mu.Unlock()
}

// events streams the live messages to one page.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "streaming is not supported by this connection"})
		return
	}
	c := s.hub.join()
	defer s.hub.leave(c)
	if s.o.Jobs != nil {
		defer s.o.Jobs.Watch()()
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 1000\n: connected\n\n")
	fl.Flush()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case msg := <-c:
			if _, err := w.Write(msg); err != nil {
				return
			}
			// Send what else is waiting in the same write burst.
			for more := true; more; {
				select {
				case m := <-c:
					if _, err := w.Write(m); err != nil {
						return
					}
				default:
					more = false
				}
			}
			fl.Flush()
		case <-tick.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			fl.Flush()
		}
	}
}
