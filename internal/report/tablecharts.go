package report

// tableChart is a chart of a workload's table (workload.Chart), drawn in the box under the
// table (Box: "charts-" and the table's ID).
type tableChart struct {
	Box   string      `json:"box"`
	Title string      `json:"title"`
	X     string      `json:"x"`
	Y     string      `json:"y"`
	LogY  bool        `json:"logy"`
	Lines []chartLine `json:"lines"`
}

type chartLine struct {
	Label  string       `json:"label"`
	Color  int          `json:"color"`
	Dashed bool         `json:"dashed"`
	Points [][2]float64 `json:"points"`
}

// tableCharts returns the charts of the tables, in order.
func tableCharts(tables []section) []tableChart {
	var out []tableChart
	for _, t := range tables {
		for _, c := range t.Charts {
			tc := tableChart{Box: "charts-" + t.ID, Title: c.Title, X: c.X, Y: c.Y, LogY: c.LogY}
			for _, l := range c.Lines {
				tc.Lines = append(tc.Lines, chartLine{Label: l.Label, Color: l.Color, Dashed: l.Dashed, Points: l.Points})
			}
			out = append(out, tc)
		}
	}
	return out
}
