using System.Text.Json;

namespace AuditTrail;

/// <summary>
/// <c>find</c>: every <c>signed</c> record whose webhook id or canonical SHA-256 is the query, in stream order. It reads
/// the trail as stored without checking the chain (<c>verify</c> does that); unreadable lines are skipped and counted.
/// </summary>
internal sealed class RecordFinder
{
    private readonly AuditStore _store;

    public RecordFinder(AuditStore store)
    {
        _store = store;
    }

    /// <summary>Streams read.</summary>
    public int Streams { get; private set; }

    /// <summary>Lines that were too long, not JSON, or past a stream's size bound: not searched.</summary>
    public long Skipped { get; private set; }

    /// <summary>Prints each match to <paramref name="output"/> and returns how many there were.</summary>
    public async Task<int> FindAsync(string query, bool byHash, string? onlyProcess, TextWriter output, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(output);
        var field = byHash ? "canonicalSha256" : "webhookId";
        var found = 0;
        var prefix = onlyProcess is null ? BlobNames.Streams : $"{BlobNames.Streams}{onlyProcess}/";
        foreach (var blob in await _store.ListAsync(prefix, cancellationToken).ConfigureAwait(false))
        {
            if (BlobNames.ProcessOf(blob.Name) is null || blob.Length > ChainVerifier.MaxStreamBytes)
            {
                Skipped++;
                continue;
            }

            Streams++;
            using var content = await _store.OpenAsync(blob.Name, cancellationToken).ConfigureAwait(false);
            var reader = new BoundedLineReader(content);
            long position = 0;
            for (var status = await reader.ReadAsync(cancellationToken).ConfigureAwait(false);
                 status == LineStatus.Line;
                 status = await reader.ReadAsync(cancellationToken).ConfigureAwait(false), position++)
            {
                if (Matches(reader.Current, field, query, blob.Name, position, output))
                {
                    found++;
                }
            }
        }

        return found;
    }

    private bool Matches(ReadOnlyMemory<byte> line, string field, string query, string stream, long position, TextWriter output)
    {
        try
        {
            using var document = JsonDocument.Parse(line, AuditJson.Options);
            var root = document.RootElement;
            if (root.ValueKind != JsonValueKind.Object || AuditJson.String(root, "kind") != "signed" ||
                !string.Equals(AuditJson.String(root, field), query, StringComparison.Ordinal))
            {
                return false;
            }

            output.Write(SignedRecordText.Describe(stream, position, root));
            return true;
        }
        catch (JsonException)
        {
            Skipped++;
            return false;
        }
    }
}
