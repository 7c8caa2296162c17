using System.Globalization;

namespace AuditTrail;

/// <summary>
/// Checks every rule of the storage contract, process by process (streams in name order, then anchors in name order),
/// and stops at the first break. Each blob is read once, line by line; the work is linear in the bytes read.
/// </summary>
internal sealed class ChainVerifier
{
    /// <summary>The largest stream read (a stream rolls every hour and after 40,000 blocks).</summary>
    public const long MaxStreamBytes = 1L << 30;

    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    private readonly AuditStore _store;
    private readonly TrustedKeys _keys;

    public ChainVerifier(AuditStore store, TrustedKeys keys)
    {
        _store = store;
        _keys = keys;
    }

    /// <summary>What was checked so far (complete when the chain holds).</summary>
    public VerifySummary Summary { get; } = new();

    /// <summary>Checks the trail (only <paramref name="onlyProcess"/> when given); a break throws <see cref="ChainBreakException"/>.</summary>
    public async Task VerifyAsync(string? onlyProcess, CancellationToken cancellationToken)
    {
        var streams = await ListAsync(BlobNames.Streams, onlyProcess, cancellationToken).ConfigureAwait(false);
        var anchors = await ListAsync(BlobNames.Anchors, onlyProcess, cancellationToken).ConfigureAwait(false);
        foreach (var process in streams.Keys.Union(anchors.Keys).Order(StringComparer.Ordinal))
        {
            Summary.Processes++;
            await VerifyProcessAsync(
                process,
                streams.GetValueOrDefault(process) ?? [],
                anchors.GetValueOrDefault(process) ?? [],
                cancellationToken).ConfigureAwait(false);
        }
    }

    private async Task<Dictionary<string, List<StoredBlob>>> ListAsync(string prefix, string? onlyProcess, CancellationToken cancellationToken)
    {
        var byProcess = new Dictionary<string, List<StoredBlob>>(StringComparer.Ordinal);
        var scope = onlyProcess is null ? prefix : $"{prefix}{onlyProcess}/";
        foreach (var blob in await _store.ListAsync(scope, cancellationToken).ConfigureAwait(false))
        {
            var process = BlobNames.ProcessOf(blob.Name);
            if (process is null || !blob.Name.StartsWith(prefix, StringComparison.Ordinal))
            {
                throw new ChainBreakException($"blob {Printable.Clean(blob.Name)}: not named as the storage format says ({prefix}<process>/<yyyyMMddTHHmmssfffZ>{(prefix == BlobNames.Streams ? ".jsonl" : ".json")})");
            }

            if (!byProcess.TryGetValue(process, out var list))
            {
                byProcess[process] = list = [];
            }

            list.Add(blob);
        }

        return byProcess;
    }

    private async Task VerifyProcessAsync(string process, List<StoredBlob> streams, List<StoredBlob> anchorBlobs, CancellationToken cancellationToken)
    {
        var anchors = new List<AnchorEntry>(anchorBlobs.Count);
        foreach (var blob in anchorBlobs)
        {
            anchors.Add(await ReadAnchorAsync(blob, cancellationToken).ConfigureAwait(false));
        }

        // The positions the anchors name: their hashes and kinds are captured while the streams are read.
        var anchored = new Dictionary<(string Stream, long Seq), (string Hash, string Kind)?>();
        foreach (var anchor in anchors)
        {
            if (anchor.Record is { } record)
            {
                anchored[(record.Stream, record.Seq)] = null;
            }
        }

        var last = anchors.Count > 0 ? anchors[^1].Record : null;
        var lengths = new Dictionary<string, long>(StringComparer.Ordinal);
        long afterLastAnchor = 0;
        SealedStream? previous = null;
        foreach (var stream in streams)
        {
            // A process that stopped between creating a stream and its first write leaves it empty: only its last
            // stream may be so (an emptied earlier stream is a break, found below).
            if (stream.Length == 0 && ReferenceEquals(stream, streams[^1]))
            {
                if (!stream.IsAppendBlob)
                {
                    throw Break($"stream {stream.Name}: not an append blob");
                }

                Summary.EmptyStreams.Add(stream.Name);
                if (streams.Count == 1 && anchorBlobs.Count == 0)
                {
                    // Nothing else of the process vouches for it: a writer that died before its first append, or a
                    // blob anyone who can write the container may add. Counted first in the report.
                    Summary.ProcessesWithOnlyAnEmptyStream++;
                }

                lengths[stream.Name] = 0;
                continue;
            }

            // Records at positions after this one are not anchored yet: all of a stream after the last anchor's.
            var order = last is null ? 1 : string.CompareOrdinal(stream.Name, last.Stream);
            var anchoredUpTo = order > 0 ? -1 : order == 0 ? last!.Seq : long.MaxValue;
            var sealedStream = await VerifyStreamAsync(process, stream, previous, anchored, anchoredUpTo, cancellationToken).ConfigureAwait(false);
            lengths[stream.Name] = sealedStream.LastPosition + 1;
            afterLastAnchor += sealedStream.Unanchored;
            previous = sealedStream;
        }

        Summary.AfterLastAnchor[process] = afterLastAnchor;
        VerifyAnchors(process, anchors, lengths, anchored);
    }

    private async Task<AnchorEntry> ReadAnchorAsync(StoredBlob blob, CancellationToken cancellationToken)
    {
        if (blob.Length > AnchorRecord.MaxBytes)
        {
            return new AnchorEntry(blob.Name, null, $"is {blob.Length} bytes, more than the {AnchorRecord.MaxBytes} an anchor may be");
        }

        var bytes = await _store.ReadSmallAsync(blob.Name, AnchorRecord.MaxBytes, cancellationToken).ConfigureAwait(false);
        if (bytes.Length > AnchorRecord.MaxBytes)
        {
            return new AnchorEntry(blob.Name, null, $"is more than the {AnchorRecord.MaxBytes} bytes an anchor may be");
        }

        var record = AnchorRecord.Parse(bytes, out var problem);
        return new AnchorEntry(blob.Name, record, problem);
    }

    private async Task<SealedStream> VerifyStreamAsync(
        string process,
        StoredBlob blob,
        SealedStream? previous,
        Dictionary<(string Stream, long Seq), (string Hash, string Kind)?> anchored,
        long anchoredUpTo,
        CancellationToken cancellationToken)
    {
        var name = blob.Name;
        if (!blob.IsAppendBlob)
        {
            throw Break($"stream {name}: not an append blob");
        }

        if (blob.Length > MaxStreamBytes)
        {
            throw Break($"stream {name}: {blob.Length} bytes, more than the {MaxStreamBytes} a stream may hold");
        }

        Summary.Streams++;
        var current = new SealedStream(name);
        using var content = await _store.OpenAsync(name, cancellationToken).ConfigureAwait(false);
        var reader = new BoundedLineReader(content);
        string? previousHash = null;
        long position = 0;
        long lastSeal = -1;
        while (true)
        {
            var status = await reader.ReadAsync(cancellationToken).ConfigureAwait(false);
            if (reader.BytesRead > MaxStreamBytes)
            {
                throw Break($"stream {name}: more than the {MaxStreamBytes} bytes a stream may hold");
            }

            if (status == LineStatus.End)
            {
                break;
            }

            var at = $"stream {name} position {position.ToString(Invariant)}";
            switch (status)
            {
                case LineStatus.TooLong:
                    throw Break($"{at}: line longer than {BoundedLineReader.MaxLineBytes} bytes");
                case LineStatus.Unterminated:
                    throw Break($"{at}: line does not end in a newline (a torn or appended write)");
            }

            var line = StreamLine.Parse(reader.Current, out var problem) ?? throw Break($"{at}: {problem}");
            if (line.Seq != position)
            {
                throw Break($"{at}: holds seq {line.Seq.ToString(Invariant)}");
            }

            var hash = AuditHash.Of(reader.Current.Span);
            if (position == 0)
            {
                VerifyOpen(process, name, line, previous);
            }
            else if (line.Prev != previousHash)
            {
                throw Break($"{at}: prev does not match the hash of position {(position - 1).ToString(Invariant)}");
            }

            switch (line.Kind)
            {
                case "open" when position == 0:
                    break;
                case "signed":
                    current.Records++;
                    current.Unanchored += position > anchoredUpTo ? 1 : 0;
                    Summary.Records++;
                    break;
                case "seal":
                    VerifySeal(at, name, line);
                    current.AddSeal(hash, position);
                    lastSeal = position;
                    Summary.Seals++;
                    break;
                default:
                    throw Break($"{at}: kind {Printable.Clean(line.Kind)} is not allowed here (open only at position 0, then signed and seal)");
            }

            if (anchored.ContainsKey((name, position)))
            {
                anchored[(name, position)] = (hash, line.Kind);
            }

            Summary.Lines++;
            previousHash = hash;
            current.LastPosition = position;
            position++;
        }

        if (position == 0)
        {
            throw Break($"stream {name} position 0: the stream is empty (no open line)");
        }

        if (lastSeal < position - 1)
        {
            throw Break($"stream {name} position {(lastSeal + 1).ToString(Invariant)}: not covered by a seal (appended after the last durable write)");
        }

        return current;
    }

    private void VerifyOpen(string process, string name, StreamLine line, SealedStream? previous)
    {
        var at = $"stream {name} position 0";
        if (line.Kind != "open")
        {
            throw Break($"{at}: kind {Printable.Clean(line.Kind)}, not open");
        }

        if (line.Stream != name)
        {
            throw Break($"{at}: open names stream {Printable.Clean(line.Stream)}, not the blob it is in");
        }

        if (line.Process != process)
        {
            throw Break($"{at}: open names process {Printable.Clean(line.Process)}, not {process}");
        }

        if (_keys.Find(line.Kid) is null)
        {
            throw Break($"{at}: open kid {Printable.Clean(line.Kid)} is not a trusted key");
        }

        if (line.PrevStream is null)
        {
            if (previous is not null)
            {
                throw Break($"stream {name}: prevStream null but the stream before it is {previous.Name} (a stream deleted or inserted)");
            }

            if (line.Prev != AuditHash.Zeros)
            {
                throw Break($"{at}: prevStream is null but prev is not 64 zeros");
            }

            return;
        }

        if (previous is null)
        {
            throw Break($"stream {name}: prevStream {Printable.Clean(line.PrevStream)} does not exist (stream missing)");
        }

        if (line.PrevStream != previous.Name)
        {
            throw Break($"stream {name}: prevStream {Printable.Clean(line.PrevStream)} but the stream before it is {previous.Name} (a stream deleted)");
        }

        if (!previous.TryFindSeal(line.Prev, out var sealPosition, out var recordsBefore))
        {
            throw Break($"{at}: prev does not match the hash of any seal of prevStream {previous.Name}");
        }

        if (sealPosition < previous.LastPosition)
        {
            var records = previous.Records - recordsBefore;
            Summary.Unacknowledged += records;
            Summary.UnacknowledgedStretches.Add(
                $"stream {previous.Name} positions {(sealPosition + 1).ToString(Invariant)}-{previous.LastPosition.ToString(Invariant)}: written, never acknowledged ({records.ToString(Invariant)} records; {name} links to the seal at position {sealPosition.ToString(Invariant)})");
        }
    }

    private void VerifySeal(string at, string name, StreamLine line)
    {
        var key = _keys.Find(line.Kid);
        if (key is null)
        {
            throw Break($"{at}: seal signature does not verify (kid {Printable.Clean(line.Kid)} is not a trusted key)");
        }

        if (!key.Verifies(line.Signature, AuditSignatures.SealMessage(name, line.Seq, line.Prev)))
        {
            throw Break($"{at}: seal signature does not verify");
        }
    }

    private void VerifyAnchors(
        string process,
        List<AnchorEntry> anchors,
        Dictionary<string, long> lengths,
        Dictionary<(string Stream, long Seq), (string Hash, string Kind)?> anchored)
    {
        var expectedPrev = AuditHash.Zeros;
        string? previousName = null;
        foreach (var entry in anchors)
        {
            var at = $"anchor {entry.Name}";
            var anchor = entry.Record ?? throw Break($"{at}: {entry.Problem}");
            var key = _keys.Find(anchor.Kid);
            if (key is null)
            {
                throw Break($"{at}: signature does not verify (kid {Printable.Clean(anchor.Kid)} is not a trusted key)");
            }

            if (!key.Verifies(anchor.Signature, anchor.SignedBytes()))
            {
                throw Break($"{at}: signature does not verify");
            }

            if (anchor.Anchor != entry.Name)
            {
                throw Break($"{at}: names itself {Printable.Clean(anchor.Anchor)}, not the blob it is in");
            }

            if (anchor.Process != process)
            {
                throw Break($"{at}: names process {Printable.Clean(anchor.Process)}, not {process}");
            }

            if (anchor.PrevAnchor != expectedPrev)
            {
                throw Break(previousName is null
                    ? $"{at}: prevAnchor does not match (the process's first anchor must have 64 zeros)"
                    : $"{at}: prevAnchor does not match the hash of {previousName}");
            }

            if (!lengths.TryGetValue(anchor.Stream, out var length))
            {
                throw Break($"{at}: stream {Printable.Clean(anchor.Stream)} missing");
            }

            if (anchor.Seq < 0 || anchor.Seq >= length)
            {
                throw Break($"{at}: stream {anchor.Stream} ends at position {(length - 1).ToString(Invariant)}, before anchored position {anchor.Seq.ToString(Invariant)}");
            }

            var line = anchored.GetValueOrDefault((anchor.Stream, anchor.Seq));
            if (line is null || line.Value.Hash != anchor.Head)
            {
                throw Break($"{at}: head does not match the hash of stream {anchor.Stream} position {anchor.Seq.ToString(Invariant)}");
            }

            if (line.Value.Kind != "seal")
            {
                throw Break($"{at}: stream {anchor.Stream} position {anchor.Seq.ToString(Invariant)} is not a seal");
            }

            Summary.Anchors++;
            expectedPrev = anchor.Hash;
            previousName = entry.Name;
        }
    }

    private static ChainBreakException Break(string message) => new(message);
}
