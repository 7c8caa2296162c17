using System.Globalization;
using System.Text;
using FunctionApp.Tests.TestKit;
using Xunit.Abstractions;
using WidgetSigning.Primitives;

namespace WidgetSigning.Tests.Envelopes;

/// <summary>
/// 10,000 seeded hostile bodies through the reader and signer, as the queue path runs them: each either signs, with exactly
/// the bytes Newtonsoft's serializer makes of it and only if it is RFC 8259 JSON (System.Text.Json's strict parser), or is rejected with a JSON path; nothing else escapes, and every pooled
/// stream goes back. A failure names the seed that reproduces it.
/// </summary>
public sealed class ReaderFuzzTests(ITestOutputHelper output)
{
    public const int Bodies = 10_000;

    [Fact]
    public void Read_TenThousandMutatedBodies_SignAsNewtonsoftOrRejectWithPath()
    {
        // Arrange
        var services = new TestServices();
        var baseSeed = EnvelopeFuzzer.BaseSeed;
        int signed = 0, rejected = 0;

        // Act + Assert, body by body.
        for (var i = 0; i < Bodies; i++)
        {
            var seed = baseSeed + i;
            var body = EnvelopeFuzzer.Create(seed);
            try
            {
                var envelope = services.Reader.Read(new MemoryStream(body, writable: false));
                using var result = services.Signer.SignWith(envelope);
                var ours = System.Buffers.BuffersExtensions.ToArray(result.GetCanonicalBytes());
                var oracle = EnvelopeFuzzer.NewtonsoftCanonical(body);
                Assert.True(oracle is not null, Describe(seed, body, "we signed a body Newtonsoft's serializer cannot read"));
                Assert.True(EnvelopeFuzzer.IsRfc8259Json(body), Describe(seed, body, "we signed a body that is not RFC 8259 JSON"));
                Assert.True(oracle.AsSpan().SequenceEqual(ours), Describe(seed, body, $"canonical bytes differ from Newtonsoft's:\n ours   {Encoding.UTF8.GetString(ours)}\n theirs {Encoding.UTF8.GetString(oracle!)}"));
                signed++;
            }
            catch (ProblemException ex) when (ex.Is(Problems.Types.InvalidEnvelope))
            {
                Assert.True(ex.Problem.JsonPath!.StartsWith('$'), Describe(seed, body, $"rejection without a JSON path: {ex.Message}"));
                Assert.True(ex.Message.Length < 600, Describe(seed, body, $"unbounded message ({ex.Message.Length} chars)"));
                rejected++;
            }
            catch (Exception ex) when (ex is not Xunit.Sdk.XunitException)
            {
                Assert.Fail(Describe(seed, body, $"unexpected {ex.GetType().Name}: {ex.Message}"));
            }

            Assert.True(services.Streams.SmallPoolInUseSize + services.Streams.LargePoolInUseSize == 0, Describe(seed, body, "a pooled stream was not returned"));
        }

        // Assert: the mix is meaningful, not all one outcome.
        output.WriteLine($"seeds {baseSeed}..{baseSeed + Bodies - 1}: {signed} signed, {rejected} rejected");
        Assert.Equal(Bodies, signed + rejected);
        Assert.True(signed > Bodies / 5 && rejected > Bodies / 5, $"signed {signed}, rejected {rejected}");
    }

    private static string Describe(int seed, byte[] body, string problem) =>
        string.Create(CultureInfo.InvariantCulture, $"FUZZ_SEED case {seed} (EnvelopeFuzzer.Create({seed})): {problem}\n body: {Encoding.UTF8.GetString(body[..Math.Min(body.Length, 2000)])}");
}
