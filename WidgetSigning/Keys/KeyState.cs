namespace WidgetSigning.Keys;

/// <summary>Where a key version stands in a rotation.</summary>
internal enum KeyState
{
    /// <summary>The newest version whose <c>nbf</c> has passed: it makes <c>X-Signature</c>.</summary>
    Current = 0,

    /// <summary>Enabled with its <c>nbf</c> still ahead: loaded, signs alongside the current key (labelled), never the signer.</summary>
    Staged = 1,

    /// <summary>An earlier version: verifies until <c>KeyVault:MaxVersionAge</c> after it was replaced, signs nothing.</summary>
    Retiring = 2,
}
