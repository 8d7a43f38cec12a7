package conf

import "time"

// Root is the whole configuration.
type Root struct {
	// Pool configures the pool.
	Pool Pool `koanf:"pool"`
	// Home is where state lives.
	Home string `koanf:"home"`
	File string `koanf:"-"`
}

// Pool is ignored: the field's comment wins.
type Pool struct {
	// Size caps the pool; see Wait.
	Size int `koanf:"size"`
	// Wait and Grace bound a stop | a start.
	Wait  time.Duration `koanf:"wait"`
	Grace time.Duration `koanf:"grace"`
	// Limit is in bytes.
	Limit int64 `koanf:"limit"`
	// Dir is under Home; the API takes it.
	Dir string `koanf:"dir"`
	// Servers by name.
	Servers map[string]Server `koanf:"servers"`
}

// Server is one server.
type Server struct {
	// Command starts it.
	Command string `koanf:"command"`
}
