using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Specialized;
using Org.BouncyCastle.Math.EC.Rfc8032;

namespace FunctionApp.Tests.Audit;

/// <summary>
/// A test-side audit writer for one process, written from the storage contract (append-blob streams of JSON lines, each
/// durable write one append block ending in a signed seal; signed anchors as block blobs), independent of the service's
/// writer. It also forges and tampers, for the attack tests. Times advance one second per event from a fixed start.
/// </summary>
public sealed class SpecChainWriter
{
    private static readonly JsonWriterOptions Json = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    private readonly BlobContainerClient _container;
    private readonly byte[] _seed;
    private DateTimeOffset _clock;
    private string? _stream;
    private long _nextSeq;
    private string _lastHash = Zeros;
    private (string Stream, long Seq, string Hash)? _acknowledged;
    private string _prevAnchor = Zeros;
    private int _records;

    public SpecChainWriter(BlobContainerClient container, byte[] seed, string process, DateTimeOffset start)
    {
        _container = container;
        _seed = seed;
        Process = process;
        _clock = start;
    }

    /// <summary>64 zeros: the hash before the first line or anchor.</summary>
    public static string Zeros { get; } = new('0', 64);

    public string Process { get; }

    /// <summary>The streams opened, in order.</summary>
    public List<string> Streams { get; } = [];

    /// <summary>The anchors written, in order.</summary>
    public List<string> Anchors { get; } = [];

    /// <summary>Every <c>signed</c> line written.</summary>
    public List<SpecRecord> Records { get; } = [];

    /// <summary>The last stream's next position.</summary>
    public long NextSeq => _nextSeq;

    public static byte[] NewSeed() => RandomNumberGenerator.GetBytes(32);

    public static byte[] PublicKeyOf(byte[] seed)
    {
        var publicKey = new byte[32];
        Ed25519.GeneratePublicKey(seed, 0, publicKey, 0);
        return publicKey;
    }

    /// <summary>The <c>--public-key</c> form: <c>whpk_</c> and base64.</summary>
    public static string WhpkOf(byte[] seed) => "whpk_" + Convert.ToBase64String(PublicKeyOf(seed));

    public static string KidOf(byte[] seed) => Convert.ToHexString(SHA256.HashData(PublicKeyOf(seed)))[..16].ToLowerInvariant();

    public static string HashOf(byte[] line) => Convert.ToHexString(SHA256.HashData(line)).ToLowerInvariant();

    /// <summary>Opens a new stream (the first block: open, <paramref name="records"/> records, seal), linked to the last acknowledged seal.</summary>
    public async Task<string> OpenStreamAsync(int records)
    {
        var previous = _stream;
        _stream = $"streams/{Process}/{Tick():yyyyMMdd'T'HHmmssfff'Z'}.jsonl";
        await _container.GetAppendBlobClient(_stream).CreateAsync();
        Streams.Add(_stream);
        _nextSeq = 0;
        _lastHash = _acknowledged?.Hash ?? Zeros;
        var open = Line(w =>
        {
            w.WriteString("kind", "open");
            w.WriteString("stream", _stream);
            w.WriteString("process", Process);
            w.WriteString("time", Time());
            if (previous is null)
            {
                w.WriteNull("prevStream");
            }
            else
            {
                w.WriteString("prevStream", _acknowledged!.Value.Stream);
            }

            w.WriteString("kid", KidOf(_seed));
        });
        await AppendBlockAsync([open, .. SignedLines(records)], _seed, acknowledged: true);
        return _stream;
    }

    /// <summary>One durable write: <paramref name="records"/> records and a seal, acknowledged.</summary>
    public Task WriteAsync(int records) => AppendBlockAsync(SignedLines(records), _seed, acknowledged: true);

    /// <summary>A write that landed but was never acknowledged (the next stream links to the seal before it).</summary>
    public Task WriteUnacknowledgedAsync(int records) => AppendBlockAsync(SignedLines(records), _seed, acknowledged: false);

    /// <summary>A block whose seal is signed by <paramref name="sealSeed"/> (a key the checker may not trust).</summary>
    public Task WriteSealedByAsync(int records, byte[] sealSeed) => AppendBlockAsync(SignedLines(records), sealSeed, acknowledged: true);

    /// <summary>A forged <c>signed</c> line with the right seq and prev, appended with no seal after it.</summary>
    public async Task AppendUnsealedRecordAsync()
    {
        var lines = SignedLines(1);
        await AppendRawAsync(_stream!, lines);
    }

    /// <summary>An anchor for the last acknowledged seal.</summary>
    public async Task<string> AnchorAsync()
    {
        var head = _acknowledged!.Value;
        var name = $"anchors/{Process}/{Tick():yyyyMMdd'T'HHmmssfff'Z'}.json";
        var bytes = AnchorBytes(name, Process, Time(), _prevAnchor, head.Stream, head.Seq, head.Hash, _seed);
        await _container.GetBlobClient(name).UploadAsync(new BinaryData(bytes), overwrite: false);
        Anchors.Add(name);
        _prevAnchor = HashOf(bytes);
        return name;
    }

    /// <summary>
    /// An anchor's bytes as the contract has them, signed with <paramref name="seed"/>; its kid is that key's unless
    /// <paramref name="kid"/> claims another (a forger naming the trusted key).
    /// </summary>
    public static byte[] AnchorBytes(string anchor, string process, string time, string prevAnchor, string stream, long seq, string head, byte[] seed, string? kid = null)
    {
        var message = Encoding.UTF8.GetBytes(string.Create(CultureInfo.InvariantCulture, $"widget-signing-audit-anchor:v1:{anchor}:{process}:{time}:{prevAnchor}:{stream}:{seq}:{head}"));
        using var buffer = new MemoryStream();
        using (var w = new Utf8JsonWriter(buffer, Json))
        {
            w.WriteStartObject();
            w.WriteString("anchor", anchor);
            w.WriteString("process", process);
            w.WriteString("time", time);
            w.WriteString("prevAnchor", prevAnchor);
            w.WriteString("stream", stream);
            w.WriteNumber("seq", seq);
            w.WriteString("head", head);
            w.WriteString("kid", kid ?? KidOf(seed));
            w.WriteString("signature", Sign(seed, message));
            w.WriteEndObject();
        }

        return buffer.ToArray();
    }

    /// <summary>A stream's lines (without their <c>\n</c>).</summary>
    public static async Task<List<byte[]>> ReadLinesAsync(BlobContainerClient container, string stream)
    {
        var content = (await container.GetBlobClient(stream).DownloadContentAsync()).Value.Content.ToArray();
        var lines = new List<byte[]>();
        var start = 0;
        for (var i = 0; i < content.Length; i++)
        {
            if (content[i] == (byte)'\n')
            {
                lines.Add(content[start..i]);
                start = i + 1;
            }
        }

        return lines;
    }

    /// <summary>Tampering: deletes <paramref name="stream"/> (unless <paramref name="createOnly"/>) and writes <paramref name="lines"/> as a new append blob.</summary>
    public static async Task RewriteStreamAsync(BlobContainerClient container, string stream, IEnumerable<byte[]> lines, bool createOnly = false)
    {
        if (!createOnly)
        {
            await container.GetBlobClient(stream).DeleteAsync();
        }

        await container.GetAppendBlobClient(stream).CreateAsync();
        await AppendRawAsync(container, stream, lines.ToList());
    }

    /// <summary>Tampering: replaces an anchor blob's bytes.</summary>
    public static async Task RewriteAnchorAsync(BlobContainerClient container, string anchor, byte[] bytes)
    {
        await container.GetBlobClient(anchor).DeleteAsync();
        await container.GetBlobClient(anchor).UploadAsync(new BinaryData(bytes));
    }

    private Task AppendRawAsync(string stream, List<byte[]> lines) => AppendRawAsync(_container, stream, lines);

    private static async Task AppendRawAsync(BlobContainerClient container, string stream, List<byte[]> lines)
    {
        using var block = new MemoryStream();
        foreach (var line in lines)
        {
            block.Write(line);
            block.WriteByte((byte)'\n');
        }

        block.Position = 0;
        await container.GetAppendBlobClient(stream).AppendBlockAsync(block);
    }

    private async Task AppendBlockAsync(List<byte[]> lines, byte[] sealSeed, bool acknowledged)
    {
        var seq = _nextSeq;
        var prev = _lastHash;
        var seal = Line(w =>
        {
            w.WriteString("kind", "seal");
            w.WriteString("time", Time());
            w.WriteString("kid", KidOf(sealSeed));
            w.WriteString("signature", Sign(sealSeed, Encoding.UTF8.GetBytes(string.Create(CultureInfo.InvariantCulture, $"widget-signing-audit-seal:v1:{_stream}:{seq}:{prev}"))));
        });
        lines.Add(seal);
        await AppendRawAsync(_stream!, lines);
        if (acknowledged)
        {
            _acknowledged = (_stream!, seq, _lastHash);
        }
    }

    private List<byte[]> SignedLines(int count)
    {
        var lines = new List<byte[]>();
        for (var i = 0; i < count; i++)
        {
            _records++;
            var webhookId = $"msg_{Process.Replace("-", string.Empty, StringComparison.Ordinal)}{_records:D4}";
            var canonical = Encoding.UTF8.GetBytes($"{{\"widgets\":[{{\"id\":\"{webhookId}\"}}]}}");
            var sha = HashOf(canonical);
            Records.Add(new SpecRecord(_stream!, _nextSeq, webhookId, sha));
            lines.Add(Line(w =>
            {
                w.WriteString("kind", "signed");
                w.WriteString("time", Time());
                w.WriteString("operation", "sign");
                w.WriteStartObject("caller");
                w.WriteString("objectId", "7a1e0000-0000-4000-8000-00000000000c");
                w.WriteString("appId", "7a1e0000-0000-4000-8000-000000000003");
                w.WriteString("tenantId", "7a1e0000-0000-4000-8000-000000000001");
                w.WriteEndObject();
                w.WriteNull("queue");
                w.WriteNull("messageId");
                w.WriteStartArray("receivers");
                w.WriteStartObject();
                w.WriteString("receiver", "partner-a");
                w.WriteString("keyId", "local");
                w.WriteString("algorithm", "HMACSHA256 Ed25519");
                w.WriteEndObject();
                w.WriteEndArray();
                w.WriteString("webhookId", webhookId);
                w.WriteNumber("widgetCount", 1);
                w.WriteNumber("canonicalLength", canonical.Length);
                w.WriteString("canonicalSha256", sha);
                w.WriteString("traceId", "00000000000000000000000000000001");
            }));
        }

        return lines;
    }

    /// <summary>A line with seq and prev first, then <paramref name="body"/>; advances seq and the last hash.</summary>
    private byte[] Line(Action<Utf8JsonWriter> body)
    {
        using var buffer = new MemoryStream();
        using (var w = new Utf8JsonWriter(buffer, Json))
        {
            w.WriteStartObject();
            w.WriteNumber("seq", _nextSeq);
            w.WriteString("prev", _lastHash);
            body(w);
            w.WriteEndObject();
        }

        var line = buffer.ToArray();
        _lastHash = HashOf(line);
        _nextSeq++;
        return line;
    }

    /// <summary>
    /// Tampering as a forger without the trail key would: from <paramref name="from"/> on, every line's <c>prev</c> is
    /// recomputed, and every seal signed again with <paramref name="forgerSeed"/> while keeping the kid it had.
    /// </summary>
    public static List<byte[]> Rechain(string stream, List<byte[]> lines, int from, byte[] forgerSeed)
    {
        var result = new List<byte[]>(lines);
        for (var i = Math.Max(from, 1); i < result.Count; i++)
        {
            var node = System.Text.Json.Nodes.JsonNode.Parse(result[i])!.AsObject();
            var prev = HashOf(result[i - 1]);
            node["prev"] = prev;
            if ((string?)node["kind"] == "seal")
            {
                node["signature"] = Sign(forgerSeed, Encoding.UTF8.GetBytes(string.Create(CultureInfo.InvariantCulture, $"widget-signing-audit-seal:v1:{stream}:{i}:{prev}")));
            }

            result[i] = Encoding.UTF8.GetBytes(node.ToJsonString());
        }

        return result;
    }

    private static string Sign(byte[] seed, byte[] message)
    {
        var signature = new byte[64];
        Ed25519.Sign(seed, 0, message, 0, message.Length, signature, 0);
        return Convert.ToBase64String(signature);
    }

    private DateTimeOffset Tick() => _clock = _clock.AddSeconds(1);

    private string Time() => _clock.UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture);
}
