package db

import (
	"fmt"
	"os"
	"testing"

	"github.com/barrhawk/barrhawk/internal/testsupport/testsrv"
)

// The package's servers: one PostgreSQL cluster and one redis-server for
// all its tests (each test uses databases and keys of its own).
var (
	pg  *testsrv.Postgres
	rdb *testsrv.Redis
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	if pg, err = testsrv.StartPostgres(); err != nil {
		fmt.Fprintln(os.Stderr, "start PostgreSQL:", err)
		return 1
	}
	defer pg.Close()
	if rdb, err = testsrv.StartRedis(); err != nil {
		fmt.Fprintln(os.Stderr, "start Redis:", err)
		return 1
	}
	defer rdb.Close()
	return m.Run()
}
