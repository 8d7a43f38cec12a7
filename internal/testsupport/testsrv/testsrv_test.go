package testsrv

import (
	"net"
	"strconv"
	"testing"
)

// The servers start, stop (the port closes) and start again on that port.
func TestStartStopStart(t *testing.T) {
	t.Parallel()
	pg, err := StartPostgres()
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	rd, err := StartRedis()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for _, s := range []*server{&pg.server, &rd.server} {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port()))
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			t.Errorf("%s still listens after Stop", s.name)
		}
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
	}
}
