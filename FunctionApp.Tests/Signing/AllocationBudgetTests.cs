using FunctionApp.Tests.TestKit;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Signing;

/// <summary>
/// Signing the seed envelope (already deserialized) allocates at most 4 KB per call after warm-up; the seed benchmark's
/// best method allocates 453 KB. Allocation counts are deterministic, so this is a budget, not a timing. Signed with the
/// hashing overlapped on a second thread (as with a spare core) and counted for the whole process, so that thread's
/// allocations count too; run alone, so no other test's do.
/// </summary>
[Collection(SerialCollection.Name)]
public sealed class AllocationBudgetTests(ITestOutputHelper output)
{
    private const long BudgetBytes = 4 * 1024;

    [Fact]
    public void Sign_SeedEnvelopeAfterWarmUp_AllocatesAtMost4KB()
    {
        // Arrange
        var services = new TestServices();
        var signer = services.CreateSigner(spareCores: TestServices.Eager);
        var vector = Vector.Load("seed-3000-widgets");
        var envelope = services.Read(vector.Input);
        for (var i = 0; i < 5; i++)
        {
            using var warm = signer.SignWith(envelope);
        }

        // Act
        const int Calls = 20;
        var before = GC.GetTotalAllocatedBytes(precise: true);
        for (var i = 0; i < Calls; i++)
        {
            using var signed = signer.SignWith(envelope);
        }

        var perCall = (GC.GetTotalAllocatedBytes(precise: true) - before) / Calls;

        output.WriteLine($"allocated per sign: {perCall} bytes");

        // Assert
        using (var check = signer.SignWith(envelope))
        {
            Assert.Equal(vector.SignatureHex, check.Signature.ToHex());
        }

        Assert.True(perCall <= BudgetBytes, $"signing allocated {perCall} bytes per call; the budget is {BudgetBytes}");
    }
}
