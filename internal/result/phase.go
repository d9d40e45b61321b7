package result

// Phase is one phase of a phased workload (the bus: fill, commands, events) with its
// peak-second and mean rates; Workload.Phases lists a record's for its page.
type Phase struct {
	Name       string   `json:"name"`
	Count      int64    `json:"count"`
	Duration   Duration `json:"duration"`
	Mean       float64  `json:"mean_per_sec"`
	PeakSecond float64  `json:"peak_per_sec"`
	// PeakChart is the highest rate over any window of a chart of the phase's series (the bus:
	// bus.ChartWindow): what the peak of a chart sampling that often shows, as RabbitMQ's
	// management UI does every 5 s (the seed read its figures off such a chart). The window is taken over the run's series, so for a
	// phase shorter than it, it reads as the phase's count over the window, as the chart's one
	// sample does; 0 when the whole series is shorter than the window.
	PeakChart float64 `json:"peak_chart_per_sec,omitempty"`
}
