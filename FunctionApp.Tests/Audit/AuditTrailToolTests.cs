using System.Text;
using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Specialized;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Audit;

/// <summary>
/// tools/AuditTrail as a process against real Azurite: a chain written by <see cref="SpecChainWriter"/> (the storage
/// contract, independently of the service's writer) holds, and each attack on it is named as the first break, with its
/// blob and position.
/// </summary>
[Collection(AzuriteCollection.Name)]
public sealed class AuditTrailToolTests
{
    private static readonly DateTimeOffset Start = new(2026, 11, 29, 5, 40, 0, TimeSpan.Zero);

    private readonly AzuriteFixture _azurite;
    private readonly byte[] _seed = SpecChainWriter.NewSeed();

    public AuditTrailToolTests(AzuriteFixture azurite)
    {
        _azurite = azurite;
    }

    [Fact]
    public async Task Verify_CleanChainOfTwoProcesses_ExitsZeroAndSaysChainHolds()
    {
        // Arrange
        var container = await NewContainerAsync();
        var first = await CleanProcessAsync(container, "host-a-1-0a0b0c0d");
        var second = await CleanProcessAsync(container, "host-b-2-1a1b1c1d");

        // Act
        var run = await VerifyAsync(container);

        // Assert
        Assert.True(run.ExitCode == 0, Describe(run));
        Assert.Contains("chain holds", run.Output, StringComparison.Ordinal);
        Assert.Contains("2 processes, 4 streams", run.Output, StringComparison.Ordinal);
        Assert.Contains($"{first.Anchors.Count + second.Anchors.Count} anchors", run.Output, StringComparison.Ordinal);
        Assert.Contains($"trusted key: kid {SpecChainWriter.KidOf(_seed)} (--public-key)", run.Output, StringComparison.Ordinal);
        Assert.Contains("host-a-1-0a0b0c0d: 1", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Verify_RecordEdited_NamesTheNextPositionsPrev()
    {
        // Arrange
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "edit-1");
        var stream = writer.Streams[0];
        var lines = await SpecChainWriter.ReadLinesAsync(container, stream);
        lines[2] = Encoding.UTF8.GetBytes(Encoding.UTF8.GetString(lines[2]).Replace("partner-a", "partner-z", StringComparison.Ordinal));
        await SpecChainWriter.RewriteStreamAsync(container, stream, lines);

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"stream {stream} position 3: prev does not match the hash of position 2");
    }

    [Fact]
    public async Task Verify_RecordDeleted_NamesThePositionHoldingTheNextSeq()
    {
        // Arrange
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "delete-1");
        var stream = writer.Streams[0];
        var lines = await SpecChainWriter.ReadLinesAsync(container, stream);
        lines.RemoveAt(2);
        await SpecChainWriter.RewriteStreamAsync(container, stream, lines);

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"stream {stream} position 2: holds seq 3");
    }

    [Fact]
    public async Task Verify_TwoRecordsReordered_NamesTheFirstSwappedPosition()
    {
        // Arrange
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "reorder-1");
        var stream = writer.Streams[1];
        var lines = await SpecChainWriter.ReadLinesAsync(container, stream);
        (lines[1], lines[2]) = (lines[2], lines[1]);
        await SpecChainWriter.RewriteStreamAsync(container, stream, lines);

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"stream {stream} position 1: holds seq 2");
    }

    [Fact]
    public async Task Verify_TailCutBeforeTheLastAnchor_NamesTheAnchorAndWhereTheStreamEnds()
    {
        // Arrange
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "cut-1");
        var stream = writer.Streams[^1];
        var lines = await SpecChainWriter.ReadLinesAsync(container, stream);
        var anchored = lines.Count - 3; // after the last anchor: one block of a record and its seal
        var cut = anchored - 2; // the anchored block (two records and its seal) and everything after it
        await SpecChainWriter.RewriteStreamAsync(container, stream, lines.Take(cut));

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"anchor {writer.Anchors[^1]}: stream {stream} ends at position {cut - 1}, before anchored position {anchored}");
    }

    [Fact]
    public async Task Verify_AnchorForgedWithAnotherKey_NamesTheAnchorsSignature()
    {
        // Arrange
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "forge-anchor-1");
        var anchor = writer.Anchors[^1];
        var lines = await SpecChainWriter.ReadLinesAsync(container, writer.Streams[^1]);
        var forged = SpecChainWriter.AnchorBytes(
            anchor, writer.Process, "2026-11-29T05:59:00.000Z", await AnchorHashAsync(container, writer.Anchors[^2]),
            writer.Streams[^1], lines.Count - 1, SpecChainWriter.HashOf(lines[^1]), SpecChainWriter.NewSeed());
        await SpecChainWriter.RewriteAnchorAsync(container, anchor, forged);

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"anchor {anchor}: signature does not verify (kid ");
    }

    [Fact]
    public async Task Verify_AnchorResignedWithWrongHead_NamesTheAnchorsHead()
    {
        // Arrange
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "forge-anchor-2");
        var anchor = writer.Anchors[^1];
        var stream = writer.Streams[^1];
        var lines = await SpecChainWriter.ReadLinesAsync(container, stream);
        var resigned = SpecChainWriter.AnchorBytes(
            anchor, writer.Process, "2026-11-29T05:59:00.000Z", await AnchorHashAsync(container, writer.Anchors[^2]),
            stream, lines.Count - 1, SpecChainWriter.HashOf(lines[^2]), _seed);
        await SpecChainWriter.RewriteAnchorAsync(container, anchor, resigned);

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"anchor {anchor}: head does not match the hash of stream {stream} position {lines.Count - 1}");
    }

    [Fact]
    public async Task Verify_ForgedRecordAppendedAfterTheLastSeal_NamesItAsNotCoveredByASeal()
    {
        // Arrange
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "append-1");
        var position = writer.NextSeq;
        await writer.AppendUnsealedRecordAsync();

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"stream {writer.Streams[^1]} position {position}: not covered by a seal (appended after the last durable write)");
    }

    [Fact]
    public async Task Verify_SealForgedWithUntrustedKey_NamesTheSealsSignature()
    {
        // Arrange
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "forge-seal-1");
        await writer.WriteSealedByAsync(2, SpecChainWriter.NewSeed());
        var seal = writer.NextSeq - 1;

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"stream {writer.Streams[^1]} position {seal}: seal signature does not verify (kid ");
    }

    [Fact]
    public async Task Verify_MiddleStreamDeleted_NamesTheStreamWhosePrevStreamIsGone()
    {
        // Arrange
        var container = await NewContainerAsync();
        var writer = new SpecChainWriter(container, _seed, "gap-1", Start);
        await writer.OpenStreamAsync(1);
        await writer.OpenStreamAsync(1);
        await writer.OpenStreamAsync(1);
        await container.GetBlobClient(writer.Streams[1]).DeleteAsync();

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"stream {writer.Streams[2]}: prevStream {writer.Streams[1]} but the stream before it is {writer.Streams[0]}");
    }

    [Fact]
    public async Task Verify_LineLongerThan64KiB_NamesItAsABreak()
    {
        // Arrange
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "long-line-1");
        var stream = writer.Streams[0];
        var lines = await SpecChainWriter.ReadLinesAsync(container, stream);
        lines[1] = Encoding.UTF8.GetBytes("{\"seq\":1,\"pad\":\"" + new string('x', 70_000) + "\"}");
        await SpecChainWriter.RewriteStreamAsync(container, stream, lines);

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"stream {stream} position 1: line longer than 65536 bytes");
    }

    [Fact]
    public async Task Verify_RecordEditedAndChainRecomputedUnderTheTrustedKid_NamesTheSealsSignature()
    {
        // Arrange: a forger without the key edits a record, recomputes every later prev and signs each seal again with
        // a key of its own, keeping the trusted kid.
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "rechain-1");
        var stream = writer.Streams[0];
        var lines = await SpecChainWriter.ReadLinesAsync(container, stream);
        lines[1] = Encoding.UTF8.GetBytes(Encoding.UTF8.GetString(lines[1]).Replace("partner-a", "partner-z", StringComparison.Ordinal));
        await SpecChainWriter.RewriteStreamAsync(container, stream, SpecChainWriter.Rechain(stream, lines, 2, SpecChainWriter.NewSeed()));

        // Act
        var run = await VerifyAsync(container);

        // Assert: the first seal after the edit, under the trusted kid, does not verify.
        AssertBreak(run, $"stream {stream} position 3: seal signature does not verify");
        Assert.DoesNotContain("is not a trusted key", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Verify_AnchorForgedUnderTheTrustedKid_NamesTheAnchorsSignature()
    {
        // Arrange: an anchor of the true head, signed with another key that claims the trusted kid.
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "forge-anchor-3");
        var anchor = writer.Anchors[^1];
        var stream = writer.Streams[^1];
        var lines = await SpecChainWriter.ReadLinesAsync(container, stream);
        var forged = SpecChainWriter.AnchorBytes(
            anchor, writer.Process, "2026-11-29T05:59:00.000Z", await AnchorHashAsync(container, writer.Anchors[^2]),
            stream, lines.Count - 3, SpecChainWriter.HashOf(lines[^3]), SpecChainWriter.NewSeed(), SpecChainWriter.KidOf(_seed));
        await SpecChainWriter.RewriteAnchorAsync(container, anchor, forged);

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"anchor {anchor}: signature does not verify");
        Assert.DoesNotContain("is not a trusted key", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Verify_AnchorDeleted_NamesTheNextAnchorsPrevAnchor()
    {
        // Arrange
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "anchor-gone-1");
        await container.GetBlobClient(writer.Anchors[1]).DeleteAsync();

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"anchor {writer.Anchors[2]}: prevAnchor does not match the hash of {writer.Anchors[0]}");
    }

    [Fact]
    public async Task Verify_TwoAnchorsSwapped_NamesTheAnchorInTheWrongBlob()
    {
        // Arrange
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "anchor-swap-1");
        var first = (await container.GetBlobClient(writer.Anchors[0]).DownloadContentAsync()).Value.Content.ToArray();
        var second = (await container.GetBlobClient(writer.Anchors[1]).DownloadContentAsync()).Value.Content.ToArray();
        await SpecChainWriter.RewriteAnchorAsync(container, writer.Anchors[0], second);
        await SpecChainWriter.RewriteAnchorAsync(container, writer.Anchors[1], first);

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"anchor {writer.Anchors[0]}: names itself {writer.Anchors[1]}, not the blob it is in");
    }

    [Fact]
    public async Task Verify_LastStreamDeleted_NamesTheAnchorWhoseStreamIsMissing()
    {
        // Arrange
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "last-gone-1");
        await container.GetBlobClient(writer.Streams[^1]).DeleteAsync();

        // Act
        var run = await VerifyAsync(container);

        // Assert: the first anchor that names the deleted stream.
        AssertBreak(run, $"anchor {writer.Anchors[2]}: stream {writer.Streams[^1]} missing");
    }

    [Fact]
    public async Task Verify_StreamCopiedUnderAnotherName_NamesTheOpenLine()
    {
        // Arrange: the first stream's bytes again, as a later stream of the same process.
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "copy-1");
        var copy = $"streams/{writer.Process}/20261129T235959000Z.jsonl";
        await SpecChainWriter.RewriteStreamAsync(container, copy, await SpecChainWriter.ReadLinesAsync(container, writer.Streams[0]), createOnly: true);

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"stream {copy} position 0: open names stream {writer.Streams[0]}, not the blob it is in");
    }

    [Fact]
    public async Task Verify_TornLastLine_NamesItUnterminated()
    {
        // Arrange: a write cut off before its newline.
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "torn-1");
        var stream = writer.Streams[^1];
        var lines = await SpecChainWriter.ReadLinesAsync(container, stream);
        using (var torn = new MemoryStream(Encoding.UTF8.GetBytes("{\"seq\":" + lines.Count)))
        {
            await container.GetAppendBlobClient(stream).AppendBlockAsync(torn);
        }

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"stream {stream} position {lines.Count}: line does not end in a newline (a torn or appended write)");
    }

    [Theory]
    [InlineData("not json at all", "is not JSON")]
    [InlineData("[1,2,3]", "is not a JSON object")]
    [InlineData("{\"seq\":2,\"prev\":7}", "has no integer seq, string prev and string kind")]
    public async Task Verify_MalformedLine_NamesItAndWhatIsWrong(string line, string problem)
    {
        // Arrange
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "malformed-1");
        var stream = writer.Streams[0];
        var lines = await SpecChainWriter.ReadLinesAsync(container, stream);
        lines[2] = Encoding.UTF8.GetBytes(line);
        await SpecChainWriter.RewriteStreamAsync(container, stream, lines);

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"stream {stream} position 2: {problem}");
    }

    [Fact]
    public async Task Verify_LineOfAnUnknownKind_NamesItsKind()
    {
        // Arrange: a record turned into a kind the contract does not have, its seq and prev intact.
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "kind-1");
        var stream = writer.Streams[0];
        var lines = await SpecChainWriter.ReadLinesAsync(container, stream);
        lines[1] = Encoding.UTF8.GetBytes(Encoding.UTF8.GetString(lines[1]).Replace("\"kind\":\"signed\"", "\"kind\":\"note\"", StringComparison.Ordinal));
        await SpecChainWriter.RewriteStreamAsync(container, stream, lines);

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"stream {stream} position 1: kind note is not allowed here (open only at position 0, then signed and seal)");
    }

    [Fact]
    public async Task Verify_BlobNameWithAnEscapeCharacterAttack_ExitsOneNamingTheListingWithoutTheRawCharacter()
    {
        // Arrange: a name XML 1.0 cannot carry; Azurite lists it raw, which no XML reader accepts.
        var container = await NewContainerAsync();
        await CleanProcessAsync(container, "escape-1");
        await container.GetAppendBlobClient("streams/esc\u001b[31m/20261129T054000000Z.jsonl").CreateAsync();

        // Act
        var verify = await VerifyAsync(container);
        var find = await AuditTrailTool.RunAsync(_azurite.ConnectionString, "find", "msg_escape10001", "--container", container.Name);

        // Assert: a break each (never a crash, never the raw character on a terminal).
        AssertBreak(verify, "listing of streams/: ");
        Assert.True(find.ExitCode == 1, Describe(find));
        Assert.Contains("BREAK listing of streams/: ", find.Output, StringComparison.Ordinal);
        Assert.DoesNotContain('\u001b', verify.Output + verify.Error + find.Output + find.Error);
    }

    [Theory]
    [InlineData("streams/with space/20261129T054000000Z.jsonl", "streams/with space/")]
    [InlineData("streams/rtl\u202egpj/20261129T054000000Z.jsonl", "streams/rtl\\u202Egpj/")]
    [InlineData("streams/Capitals/20261129T054000000Z.jsonl", "streams/Capitals/")]
    [InlineData("anchors/zero\u200bwidth/20261129T054000000Z.json", "anchors/zero\\u200Bwidth/")]
    public async Task Verify_BlobNameOutsideTheContractAttack_NamesItEscaped(string name, string printed)
    {
        // Arrange
        var container = await NewContainerAsync();
        await CleanProcessAsync(container, "names-1");
        await container.GetAppendBlobClient(name).CreateAsync();

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"blob {printed}");
        Assert.Contains("not named as the storage format says", run.Output, StringComparison.Ordinal);
        Assert.DoesNotContain(run.Output, c => c is '\u202e' or '\u200b');
    }

    [Fact]
    public async Task Verify_FakeEmptyStreamsUnderInventedProcessesAttack_SummaryLeadsWithTheirCount()
    {
        // Arrange: a clean process, and 200 empty streams under names no instance ever had.
        var container = await NewContainerAsync();
        await CleanProcessAsync(container, "real-1");
        await Parallel.ForEachAsync(Enumerable.Range(0, 200), async (i, _) =>
            await container.GetAppendBlobClient($"streams/zz-invented-{i:D4}/20261129T054000000Z.jsonl").CreateAsync());

        // Act
        var run = await VerifyAsync(container);

        // Assert: the chain of the real process holds, and the report's first line after the key counts the fakes.
        Assert.True(run.ExitCode == 0, Describe(run));
        var lines = run.Output.Split('\n', StringSplitOptions.TrimEntries);
        var note = Array.FindIndex(lines, l => l.StartsWith("NOTE 200 process(es) hold nothing but one empty stream", StringComparison.Ordinal));
        var checkedLine = Array.FindIndex(lines, l => l.StartsWith("checked: 201 processes", StringComparison.Ordinal));
        Assert.True(note >= 0 && note < checkedLine, Describe(run));
        Assert.Contains("empty streams: 200", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Verify_EmptyLastStreamThatIsNotAnAppendBlob_NamesIt()
    {
        // Arrange: a zero-byte block blob where a process's next stream would be.
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "block-1");
        var fake = $"streams/{writer.Process}/20261129T235959000Z.jsonl";
        await container.GetBlobClient(fake).UploadAsync(new BinaryData([]));

        // Act
        var run = await VerifyAsync(container);

        // Assert
        AssertBreak(run, $"stream {fake}: not an append blob");
    }

    [Fact]
    public async Task Verify_EmptyLastStreamOfAProcessThatWrote_ExitsZeroAndListsIt()
    {
        // Arrange: the process stopped between creating its next stream and writing to it.
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "stopped-1");
        var empty = $"streams/{writer.Process}/20261129T235959000Z.jsonl";
        await container.GetAppendBlobClient(empty).CreateAsync();

        // Act
        var run = await VerifyAsync(container);

        // Assert
        Assert.True(run.ExitCode == 0, Describe(run));
        Assert.Contains($"stream {empty}: empty (opened, nothing written before the process stopped)", run.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("NOTE", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Verify_LinesAfterTheSealTheNextStreamLinksTo_ExitsZeroAndReportsThemUnacknowledged()
    {
        // Arrange
        var container = await NewContainerAsync();
        var writer = new SpecChainWriter(container, _seed, "failed-write-1", Start);
        await writer.OpenStreamAsync(2);
        await writer.AnchorAsync();
        var acknowledgedSeal = writer.NextSeq - 1;
        await writer.WriteUnacknowledgedAsync(2);
        var last = writer.NextSeq - 1;
        await writer.OpenStreamAsync(1);
        await writer.AnchorAsync();

        // Act
        var run = await VerifyAsync(container);

        // Assert
        Assert.True(run.ExitCode == 0, Describe(run));
        Assert.Contains("chain holds", run.Output, StringComparison.Ordinal);
        Assert.Contains("unacknowledged records: 2", run.Output, StringComparison.Ordinal);
        Assert.Contains($"stream {writer.Streams[0]} positions {acknowledgedSeal + 1}-{last}: written, never acknowledged", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Verify_NoPublicKeyAndTheRepoLocalKey_TrustsTheLocalKey()
    {
        // Arrange
        var container = await NewContainerAsync();
        await CleanProcessAsync(container, "local-key-1");
        var repo = Directory.CreateTempSubdirectory("audit-repo-").FullName;
        try
        {
            await File.WriteAllTextAsync(Path.Combine(repo, "FunctionApp.slnx"), "<Solution />");
            Directory.CreateDirectory(Path.Combine(repo, "FunctionApp.Isolated"));
            await File.WriteAllTextAsync(
                Path.Combine(repo, "FunctionApp.Isolated", "local.settings.json"),
                $"{{\"IsEncrypted\":false,\"Values\":{{\"Audit:LocalSigningKey\":\"whsk_{Convert.ToBase64String(_seed)}\"}}}}");
            var below = Directory.CreateDirectory(Path.Combine(repo, "scripts")).FullName;

            // Act
            var run = await AuditTrailTool.RunInAsync(below, _azurite.ConnectionString, "verify", "--container", container.Name);

            // Assert
            Assert.True(run.ExitCode == 0, Describe(run));
            Assert.Contains($"trusted key: kid {SpecChainWriter.KidOf(_seed)} (Audit:LocalSigningKey in FunctionApp.Isolated/local.settings.json)", run.Output, StringComparison.Ordinal);
            Assert.DoesNotContain(Convert.ToBase64String(_seed), run.Output + run.Error, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(repo, recursive: true);
        }
    }

    [Fact]
    public async Task Verify_NoPublicKeyOutsideTheRepo_ExitsTwoAndSaysWhy()
    {
        // Arrange
        var outside = Directory.CreateTempSubdirectory("audit-outside-").FullName;
        try
        {
            // Act
            var run = await AuditTrailTool.RunInAsync(outside, _azurite.ConnectionString, "verify");

            // Assert
            Assert.True(run.ExitCode == 2, Describe(run));
            Assert.Contains("No trusted key", run.Error, StringComparison.Ordinal);
            Assert.DoesNotContain(AzuriteFixture.AccountKey, run.Output + run.Error, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(outside, recursive: true);
        }
    }

    [Fact]
    public async Task Find_ByWebhookId_ExitsZeroAndPrintsTheRecord()
    {
        // Arrange
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "find-1");
        var record = writer.Records[3];

        // Act
        var run = await AuditTrailTool.RunAsync(_azurite.ConnectionString, "find", record.WebhookId, "--container", container.Name);

        // Assert
        Assert.True(run.ExitCode == 0, Describe(run));
        Assert.Contains($"stream {record.Stream} position {record.Seq}", run.Output, StringComparison.Ordinal);
        Assert.Contains($"webhook-id       {record.WebhookId}", run.Output, StringComparison.Ordinal);
        Assert.Contains("receiver         partner-a: key local, HMACSHA256 Ed25519", run.Output, StringComparison.Ordinal);
        Assert.Contains("1 record(s) found", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Find_ByCanonicalSha256_ExitsZeroAndPrintsTheRecord()
    {
        // Arrange
        var container = await NewContainerAsync();
        var writer = await CleanProcessAsync(container, "find-2");
        var record = writer.Records[^1];

        // Act
        var run = await AuditTrailTool.RunAsync(_azurite.ConnectionString, "find", record.CanonicalSha256.ToUpperInvariant(), "--container", container.Name);

        // Assert
        Assert.True(run.ExitCode == 0, Describe(run));
        Assert.Contains($"stream {record.Stream} position {record.Seq}", run.Output, StringComparison.Ordinal);
        Assert.Contains($"canonical sha256 {record.CanonicalSha256}", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Find_UnknownWebhookId_ExitsOne()
    {
        // Arrange
        var container = await NewContainerAsync();
        await CleanProcessAsync(container, "find-3");

        // Act
        var run = await AuditTrailTool.RunAsync(_azurite.ConnectionString, "find", "msg_nosuchid", "--container", container.Name);

        // Assert
        Assert.True(run.ExitCode == 1, Describe(run));
        Assert.Contains("0 record(s) found", run.Output, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("../x")]
    [InlineData("msg_1;rm")]
    [InlineData("")]
    [InlineData("long")]
    public async Task Find_MalformedArgument_ExitsTwo(string argument)
    {
        // Arrange
        var query = argument == "long" ? new string('a', 10_000) : argument;

        // Act
        var run = await AuditTrailTool.RunAsync(_azurite.ConnectionString, "find", query);

        // Assert
        Assert.True(run.ExitCode == 2, Describe(run));
        Assert.Contains("find's argument is a webhook id", run.Error, StringComparison.Ordinal);
        Assert.Empty(run.Output);
    }

    /// <summary>A process with two streams, three blocks in each, and an anchor after each stream's first and last block.</summary>
    private async Task<SpecChainWriter> CleanProcessAsync(BlobContainerClient container, string process)
    {
        var writer = new SpecChainWriter(container, _seed, process, Start);
        await writer.OpenStreamAsync(2);
        await writer.AnchorAsync();
        await writer.WriteAsync(2);
        await writer.WriteAsync(2);
        await writer.AnchorAsync();
        await writer.OpenStreamAsync(1);
        await writer.WriteAsync(2);
        await writer.AnchorAsync();
        await writer.WriteAsync(2);
        await writer.AnchorAsync();
        await writer.WriteAsync(1);
        return writer;
    }

    private async Task<BlobContainerClient> NewContainerAsync()
    {
        var container = new BlobServiceClient(_azurite.ConnectionString).GetBlobContainerClient($"audit-{Guid.NewGuid():N}"[..20]);
        await container.CreateAsync();
        return container;
    }

    private static async Task<string> AnchorHashAsync(BlobContainerClient container, string anchor) =>
        SpecChainWriter.HashOf((await container.GetBlobClient(anchor).DownloadContentAsync()).Value.Content.ToArray());

    private Task<ExternalTool> VerifyAsync(BlobContainerClient container) =>
        AuditTrailTool.RunAsync(_azurite.ConnectionString, "verify", "--container", container.Name, "--public-key", SpecChainWriter.WhpkOf(_seed));

    private static void AssertBreak(ExternalTool run, string expected)
    {
        Assert.True(run.ExitCode == 1, Describe(run));
        Assert.Contains($"BREAK {expected}", run.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("chain holds", run.Output, StringComparison.Ordinal);
    }

    private static string Describe(ExternalTool run) => $"exit {run.ExitCode}\nstdout:\n{run.Output}\nstderr:\n{run.Error}";
}
