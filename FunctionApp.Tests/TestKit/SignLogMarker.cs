using System.Diagnostics;
using System.Net;
using System.Net.Http.Headers;

namespace FunctionApp.Tests.TestKit;

/// <summary>
/// Reads a host process's output up to a flush marker. The marker is the empty envelope signed through
/// <paramref name="client"/> (which the attack tests never send otherwise), found by its log line ("Sign signed 0
/// widgets") in <paramref name="output"/>. The host logs in order and a request is logged before it is answered, so
/// every line an earlier request logged comes before the marker's, however late the output reaches the test (an answer
/// can reach the client before its own log line does: the isolated worker's log travels to the host over gRPC).
/// </summary>
public sealed class SignLogMarker(HttpClient client, Func<string> output)
{
    /// <summary>What every signing's log line contains (event 4002).</summary>
    public const string SignedLine = "Sign signed ";

    private const string MarkerLine = "Sign signed 0 widgets";
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(10);

    /// <summary>Signs the empty envelope and returns where its log line starts and ends in the output.</summary>
    public async Task<(int Start, int End)> PlaceAsync()
    {
        var before = MarkerLines(output()).Count;
        using var content = new ByteArrayContent("{\"widgets\":[]}"u8.ToArray()) { Headers = { ContentType = new MediaTypeHeaderValue("application/json") } };
        using var signed = await client.PostAsync("/api/sign", content);
        Assert.Equal(HttpStatusCode.OK, signed.StatusCode);
        var waited = Stopwatch.StartNew();
        while (MarkerLines(output()).Count <= before && waited.Elapsed < Patience)
        {
            await Task.Delay(50);
        }

        var text = output();
        var lines = MarkerLines(text);
        Assert.True(lines.Count > before, $"the empty envelope's log line did not come:\n{text[^Math.Min(2000, text.Length)..]}");
        return lines[before];
    }

    /// <summary>Everything logged after <paramref name="mark"/> and before a new marker's line: all that the requests in between logged.</summary>
    public async Task<string> SinceAsync((int Start, int End) mark)
    {
        var next = await PlaceAsync();
        return output()[mark.End..next.Start];
    }

    /// <summary>The signing log lines in <paramref name="text"/>.</summary>
    public static IReadOnlyList<string> SignedLines(string text) =>
        text.Split('\n').Where(l => l.Contains(SignedLine, StringComparison.Ordinal)).ToList();

    private static List<(int Start, int End)> MarkerLines(string text)
    {
        var found = new List<(int Start, int End)>();
        for (var at = text.IndexOf(MarkerLine, StringComparison.Ordinal); at >= 0; at = text.IndexOf(MarkerLine, at + 1, StringComparison.Ordinal))
        {
            var start = text.LastIndexOf('\n', at) + 1;
            var end = text.IndexOf('\n', at);
            found.Add((start, end < 0 ? text.Length : end + 1));
        }

        return found;
    }
}
