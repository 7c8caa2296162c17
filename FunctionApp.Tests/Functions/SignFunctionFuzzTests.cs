using System.Diagnostics;
using System.Globalization;
using System.Text;
using FunctionApp.Functions;
using WidgetSigning.Http;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Logging;
using Microsoft.IO;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Functions;

/// <summary>
/// The same 10,000 seeded hostile bodies (EnvelopeFuzzer) through <c>/api/sign</c> in the WebJobs host, binding and
/// result execution included: each answers 200 with exactly Newtonsoft's canonical bytes and their signature, or 400 with
/// a problem naming a JSON path. No 500, no exception out of the host, no error logged, every pooled stream returned.
/// </summary>
public sealed class SignFunctionFuzzTests(ITestOutputHelper output)
{
    public const int Bodies = 10_000;

    [Fact]
    public async Task Sign_TenThousandMutatedBodiesThroughTheHost_200WithNewtonsoftBytesOr400WithPath()
    {
        // Arrange
        await using var host = await FunctionsTestHost.StartAsync(SignHostFixture.Settings(), typeof(SignFunction));
        var pool = host.GetService<RecyclableMemoryStreamManager>();
        var baseSeed = EnvelopeFuzzer.BaseSeed;
        int signed = 0, rejected = 0, serverErrors = 0;
        var watch = Stopwatch.StartNew();

        // Act + Assert, body by body.
        for (var i = 0; i < Bodies; i++)
        {
            var seed = baseSeed + i;
            var body = EnvelopeFuzzer.Create(seed);
            HttpResponseSnapshot response;
            try
            {
                response = await host.InvokeHttpAsync(SignFunction.Name, TestRequests.Post("/api/sign", body, query: "?output=canonical"));
            }
            catch (Exception ex) when (ex is not Xunit.Sdk.XunitException)
            {
                Assert.Fail(Describe(seed, body, $"the host threw {ex.GetType().Name}: {ex.Message}"));
                return;
            }

            if (response.Status >= 500)
            {
                serverErrors++;
            }

            if (response.Status == 200)
            {
                var oracle = EnvelopeFuzzer.NewtonsoftCanonical(body);
                Assert.True(oracle is not null, Describe(seed, body, "signed a body Newtonsoft's serializer cannot read"));
                Assert.True(oracle.AsSpan().SequenceEqual(response.Body), Describe(seed, body, "canonical bytes differ from Newtonsoft's"));
                Assert.Equal(Hmac(oracle!), response.Header(SignatureHeaders.Signature));
                signed++;
            }
            else
            {
                Assert.True(response.Status == 400, Describe(seed, body, $"status {response.Status}: {response.Text}"));
                var jsonPath = (string?)response.Json["jsonPath"];
                Assert.True(jsonPath is not null && jsonPath.StartsWith('$'), Describe(seed, body, $"no JSON path: {response.Text}"));
                Assert.Equal(ProblemTypes.InvalidEnvelope, (string?)response.Json["type"]);
                rejected++;
            }

            Assert.True(pool.SmallPoolInUseSize + pool.LargePoolInUseSize == 0, Describe(seed, body, "a pooled stream was not returned"));
        }

        // Assert
        output.WriteLine($"seeds {baseSeed}..{baseSeed + Bodies - 1}: {signed} signed, {rejected} rejected, {serverErrors} 5xx, in {watch.Elapsed.TotalSeconds:F1} s");
        Assert.Equal(0, serverErrors);
        Assert.DoesNotContain(host.Logs.Entries, e => e.Level >= LogLevel.Error);
        Assert.True(signed > Bodies / 5 && rejected > Bodies / 5, $"signed {signed}, rejected {rejected}");
    }

    private static string Hmac(byte[] canonical) => Convert.ToHexString(System.Security.Cryptography.HMACSHA256.HashData(Vector.Key, canonical)).ToLowerInvariant();

    private static string Describe(int seed, byte[] body, string problem) =>
        string.Create(CultureInfo.InvariantCulture, $"FUZZ_SEED case {seed} (EnvelopeFuzzer.Create({seed})): {problem}\n body: {Encoding.UTF8.GetString(body[..Math.Min(body.Length, 2000)])}");
}
