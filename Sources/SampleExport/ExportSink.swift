/// Where a writer sends its text: called once per chunk, in order. Chunks are whole lines or parts of one line.
///
/// Any `TextOutputStream` class can be used as `{ stream.write($0) }`; ``FileSink`` buffers to a file.
public typealias ExportSink = (String) throws -> Void
