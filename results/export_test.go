package results

// SeriesFileReference is seriesFileReference, for the external tests.
var SeriesFileReference = seriesFileReference
