using System.Diagnostics;
using System.Globalization;
using System.IO.Compression;
using System.Net;
using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;
using FunctionApp.Tests.Infra;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Tooling;

/// <summary>
/// scripts/otlp-sink.mjs (<c>npm run otlp-sink</c>) over a real socket: OTLP/HTTP protobuf exports, plain or gzip, get an
/// empty 200 and are counted per signal (requests, bytes, spans / data points / log records) in the JSON summary it
/// prints on SIGTERM; every other request is refused with a reason and counted only as refused. The bodies are OTLP
/// messages encoded here by hand, field by field from opentelemetry-proto.
/// </summary>
public sealed partial class OtlpSinkScriptTests
{
    private const string Protobuf = "application/x-protobuf";
    private const int MaxBytes = 8 * 1024 * 1024;

    [Fact]
    public async Task OtlpSink_ProtobufAndGzipExports_AnswerEmpty200AndAreCountedPerSignal()
    {
        // Arrange
        await using var sink = await SinkProcess.StartAsync();
        var traces = TracesRequest("widgetsigning.sign", "widgetsigning.read");
        var metrics = MetricsRequest("widgetsigning.signatures", points: 2);
        var gzipMetrics = Gzip(metrics);
        var logs = LogsRequest(records: 3);

        // Act
        using var tracesAnswer = await sink.PostAsync("/v1/traces", traces);
        using var metricsAnswer = await sink.PostAsync("/v1/metrics", gzipMetrics, gzip: true);
        using var logsAnswer = await sink.PostAsync("/v1/logs", logs);
        var summary = await sink.StopAsync();

        // Assert
        foreach (var answer in new[] { tracesAnswer, metricsAnswer, logsAnswer })
        {
            Assert.Equal(HttpStatusCode.OK, answer.StatusCode);
            Assert.Equal(Protobuf, answer.Content.Headers.ContentType?.MediaType);
            Assert.Empty(await answer.Content.ReadAsByteArrayAsync());
        }

        AssertSignal(summary, "traces", requests: 1, bytes: traces.Length, uncompressed: traces.Length, items: 2);
        AssertSignal(summary, "metrics", requests: 1, bytes: gzipMetrics.Length, uncompressed: metrics.Length, items: 2);
        AssertSignal(summary, "logs", requests: 1, bytes: logs.Length, uncompressed: logs.Length, items: 3);
        Assert.Empty(summary.GetProperty("refused").EnumerateObject());
    }

    [Fact]
    public async Task OtlpSink_Verbose_NamesTheSpansAndMetricsSeen()
    {
        // Arrange
        await using var sink = await SinkProcess.StartAsync("--verbose");

        // Act
        using var traces = await sink.PostAsync("/v1/traces", TracesRequest("widgetsigning.sign", "widgetsigning.sign", "Sign"));
        using var metrics = await sink.PostAsync("/v1/metrics", MetricsRequest("widgetsigning.refusals", points: 1));
        var summary = await sink.StopAsync();

        // Assert
        Assert.Equal(HttpStatusCode.OK, traces.StatusCode);
        Assert.Equal(HttpStatusCode.OK, metrics.StatusCode);
        Assert.Equal("""{"widgetsigning.sign":2,"Sign":1}""", summary.GetProperty("spanNames").GetRawText());
        Assert.Equal("""{"widgetsigning.refusals":1}""", summary.GetProperty("metricNames").GetRawText());
    }

    [Theory]
    [InlineData("oversized body", "POST", "/v1/traces", null, 413, "at most 8388608")]
    [InlineData("gzip bomb", "POST", "/v1/metrics", "gzip", 413, "once gunzipped")]
    [InlineData("not gzip", "POST", "/v1/logs", "gzip", 400, "not gzip")]
    [InlineData("not protobuf", "POST", "/v1/traces", null, 400, "not an OTLP traces export request")]
    [InlineData("length past the end", "POST", "/v1/traces", null, 400, "length past the end")]
    [InlineData("unknown path", "POST", "/v1/profiles", null, 404, "No OTLP signal at /v1/profiles")]
    [InlineData("GET on a signal", "GET", "/v1/traces", null, 405, "POST only")]
    [InlineData("JSON body", "POST", "/v1/traces", "json", 415, "application/x-protobuf")]
    [InlineData("deflate encoding", "POST", "/v1/traces", "deflate", 415, "gzip or none")]
    public async Task OtlpSink_HostileRequest_IsRefusedWithAReasonAndNotCounted(string attack, string method, string path, string? encoding, int status, string reason)
    {
        // Arrange
        await using var sink = await SinkProcess.StartAsync();
        var body = attack switch
        {
            "oversized body" => new byte[MaxBytes + 1],
            "gzip bomb" => Gzip(new byte[MaxBytes + 1]),
            "not protobuf" => [0xff, 0xff, 0xff],
            "length past the end" => [0x0a, 0x7f, 0x01],
            "JSON body" => "{}"u8.ToArray(),
            _ => TracesRequest("x"),
        };

        // Act
        using var answer = await sink.SendAsync(method, path, body, encoding);
        var text = await answer.Content.ReadAsStringAsync();
        var summary = await sink.StopAsync();

        // Assert
        Assert.True((int)answer.StatusCode == status, $"{attack}: {(int)answer.StatusCode} {text}");
        Assert.Contains(reason, text, StringComparison.Ordinal);
        Assert.Equal(1, summary.GetProperty("refused").GetProperty(status.ToString(CultureInfo.InvariantCulture)).GetInt32());
        foreach (var signal in new[] { "traces", "metrics", "logs" })
        {
            AssertSignal(summary, signal, requests: 0, bytes: 0, uncompressed: 0, items: 0);
        }
    }

    [Theory]
    [InlineData("OTLP_SINK_PORT", "70000")]
    [InlineData("OTLP_SINK_PORT", "abc")]
    [InlineData("OTLP_SINK_MAX_BYTES", "0")]
    public async Task OtlpSink_SettingOutOfRange_ExitsTwoNamingIt(string variable, string value)
    {
        // Arrange
        var start = SinkProcess.Node();
        start.Environment[variable] = value;

        // Act
        var run = await ExternalTool.RunAsync(start, "node scripts/otlp-sink.mjs");

        // Assert
        Assert.Equal(2, run.ExitCode);
        Assert.Contains($"{variable} must be a whole number", run.Error, StringComparison.Ordinal);
    }

    private static void AssertSignal(JsonElement summary, string signal, int requests, int bytes, int uncompressed, int items)
    {
        var counts = summary.GetProperty(signal);
        Assert.Equal(
            (requests, bytes, uncompressed, items),
            (counts.GetProperty("requests").GetInt32(), counts.GetProperty("bytes").GetInt32(), counts.GetProperty("uncompressedBytes").GetInt32(), counts.GetProperty("items").GetInt32()));
    }

    // opentelemetry-proto: Export*ServiceRequest.resource_* = 1, Resource*.scope_* = 2, Scope*.<items> = 2;
    // Span.name = 5; Metric.name = 1, Metric.sum = 7, Sum.data_points = 1, NumberDataPoint.as_double = 4 (fixed64);
    // LogRecord.time_unix_nano = 1 (fixed64), LogRecord.severity_number = 2 (varint).
    private static byte[] TracesRequest(params string[] spanNames) =>
        Field(1, Field(2, [.. spanNames.SelectMany(name => Field(2, Field(5, Encoding.UTF8.GetBytes(name))))]));

    private static byte[] MetricsRequest(string name, int points)
    {
        byte[] point = [0x21, .. BitConverter.GetBytes(1.5)];
        byte[] sum = [.. Enumerable.Range(0, points).SelectMany(_ => Field(1, point))];
        return Field(1, Field(2, Field(2, [.. Field(1, Encoding.UTF8.GetBytes(name)), .. Field(7, sum)])));
    }

    private static byte[] LogsRequest(int records)
    {
        byte[] record = [0x09, .. BitConverter.GetBytes(1_700_000_000_000_000_000L), 0x10, 9];
        return Field(1, Field(2, [.. Enumerable.Range(0, records).SelectMany(_ => Field(2, record))]));
    }

    /// <summary>A length-delimited field: its key, the length as a varint, the bytes.</summary>
    private static byte[] Field(int number, byte[] value)
    {
        var bytes = new List<byte> { (byte)((number << 3) | 2) };
        for (var length = (uint)value.Length; ; length >>= 7)
        {
            bytes.Add((byte)(length >= 0x80 ? (length & 0x7f) | 0x80 : length));
            if (length < 0x80)
            {
                break;
            }
        }

        bytes.AddRange(value);
        return [.. bytes];
    }

    private static byte[] Gzip(byte[] value)
    {
        using var buffer = new MemoryStream();
        using (var gzip = new GZipStream(buffer, CompressionLevel.Optimal))
        {
            gzip.Write(value);
        }

        return buffer.ToArray();
    }

    [GeneratedRegex(@"otlp-sink listening on (http://127\.0\.0\.1:\d+)")]
    private static partial Regex ReadyLine();

    /// <summary>One run of the sink on a free port: requests to it, then SIGTERM and the summary it prints.</summary>
    private sealed class SinkProcess : IAsyncDisposable
    {
        private readonly Process _process;
        private readonly HttpClient _client;
        private readonly Task<string> _output;

        private SinkProcess(Process process, Uri address, Task<string> output)
        {
            _process = process;
            _output = output;
            _client = new HttpClient { BaseAddress = address, Timeout = TimeSpan.FromSeconds(30) };
        }

        public static ProcessStartInfo Node(params string[] arguments)
        {
            var start = new ProcessStartInfo("node")
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                RedirectStandardInput = true,
                UseShellExecute = false,
                WorkingDirectory = RepoRoot.Path,
            };
            start.ArgumentList.Add(RepoFiles.File("scripts", "otlp-sink.mjs"));
            foreach (var argument in arguments)
            {
                start.ArgumentList.Add(argument);
            }

            start.Environment["OTLP_SINK_PORT"] = "0";
            start.Environment.Remove("OTLP_SINK_MAX_BYTES");
            return start;
        }

        public static async Task<SinkProcess> StartAsync(params string[] arguments)
        {
            var process = Process.Start(Node(arguments)) ?? throw new InvalidOperationException("node did not start");
            process.StandardInput.Close();
            var output = process.StandardOutput.ReadToEndAsync();
            var seen = new StringBuilder();
            using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            try
            {
                while (await process.StandardError.ReadLineAsync(timeout.Token) is { } line)
                {
                    seen.AppendLine(line);
                    if (ReadyLine().Match(line) is { Success: true } match)
                    {
                        _ = process.StandardError.ReadToEndAsync(CancellationToken.None);
                        return new SinkProcess(process, new Uri(match.Groups[1].Value), output);
                    }
                }
            }
            catch (OperationCanceledException)
            {
                // reported below
            }

            process.Kill(entireProcessTree: true);
            process.Dispose();
            throw new InvalidOperationException($"otlp-sink did not print its ready line within 30 s:\n{seen}");
        }

        public Task<HttpResponseMessage> PostAsync(string path, byte[] body, bool gzip = false) => SendAsync("POST", path, body, gzip ? "gzip" : null);

        /// <summary><paramref name="encoding"/>: a Content-Encoding, or "json" for a JSON content type; protobuf otherwise.</summary>
        public async Task<HttpResponseMessage> SendAsync(string method, string path, byte[] body, string? encoding)
        {
            using var request = new HttpRequestMessage(new HttpMethod(method), path);
            if (method != "GET")
            {
                request.Content = new ByteArrayContent(body);
                request.Content.Headers.ContentType = new MediaTypeHeaderValue(encoding == "json" ? "application/json" : Protobuf);
                if (encoding is not null and not "json")
                {
                    request.Content.Headers.ContentEncoding.Add(encoding);
                }
            }

            return await _client.SendAsync(request);
        }

        /// <summary>SIGTERM, as a terminal's Ctrl-C or a service manager's stop; the summary line it printed, after it exited 0.</summary>
        public async Task<JsonElement> StopAsync()
        {
            using var kill = Process.Start(new ProcessStartInfo("kill") { ArgumentList = { "-TERM", _process.Id.ToString(CultureInfo.InvariantCulture) }, UseShellExecute = false })
                ?? throw new InvalidOperationException("kill did not start");
            await kill.WaitForExitAsync();
            using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            await _process.WaitForExitAsync(timeout.Token);
            var output = await _output;
            Assert.True(_process.ExitCode == 0, $"otlp-sink exited {_process.ExitCode}: {output}");
            using var summary = JsonDocument.Parse(output.Trim().Split('\n')[^1]);
            return summary.RootElement.Clone();
        }

        public ValueTask DisposeAsync()
        {
            _client.Dispose();
            if (!_process.HasExited)
            {
                _process.Kill(entireProcessTree: true);
            }

            _process.Dispose();
            return ValueTask.CompletedTask;
        }
    }
}
