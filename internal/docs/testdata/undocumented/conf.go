package conf

// Root is the whole configuration.
type Root struct {
	// Pool configures the pool.
	Pool Pool `koanf:"pool"`
}

// Pool configures the pool.
type Pool struct {
	Size int `koanf:"size"`
}
